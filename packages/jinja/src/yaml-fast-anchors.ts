/**
 * Anchors, aliases and merge keys (`<<: *name`) for the fast YAML path (yaml-fast.ts), as the
 * full loader (the yaml library with YAML 1.1 merge keys) gives them: an alias is the anchored
 * value itself (the same object), a merge copies the anchored map's keys that the map does not
 * have yet, its nested maps and lists copied fresh. Where the two could part (an alias inside what
 * a merge copies, integer-like keys beside a merge, positions) the text is left to the full parser.
 */
import { setKey } from '@brine/core';
import { GIVE_UP, giveUp } from './yaml-scalars.js';

/** An anchor whose collection is still being read: an alias to it is the full parser's. */
const PENDING = Symbol('pending');

const INDEX_KEY = /^(?:0|[1-9][0-9]*)$/;

export class Anchors {
  /** What each name's alias gives now. */
  readonly values = new Map<string, unknown>();
  /** The collection each name's latest anchor was set on. */
  readonly definedAt = new Map<string, object>();
  /** Collections an anchor was set on. */
  readonly anchored = new Set<object>();
  /** Collections an alias gave: a merge that would copy one declines (the full loader shares it). */
  readonly aliased = new Set<object>();
  /** A merge happened: the result is checked for integer-like keys at the end. */
  merged = false;

  /** How many anchors began, and the count each name's latest one began at. */
  private begun = 0;
  private readonly latest = new Map<string, number>();

  /** An anchor starts; its value is set() once read. Returns its turn. */
  begin(name: string): number {
    this.values.set(name, PENDING);
    this.definedAt.delete(name);
    this.latest.set(name, ++this.begun);
    return this.begun;
  }

  /** An anchor's value; an alias names the anchor written last, so one that began inside it (same name) wins. */
  set(name: string, v: unknown, turn: number): void {
    if (this.latest.get(name) !== turn) return;
    this.values.set(name, v);
    if (v !== null && typeof v === 'object') {
      this.definedAt.set(name, v);
      this.anchored.add(v);
    }
  }

  /** The value `*name` stands for; GIVE_UP for an unknown or unfinished anchor. */
  alias(name: string): unknown {
    const v = this.values.get(name);
    if (v === undefined && !this.values.has(name)) return giveUp('alias of an unknown anchor');
    if (v === PENDING) return giveUp('alias inside its own anchor');
    return v;
  }

  /** Merges the map `*name` into `out`; the keys it set go into `merged`. */
  merge(out: Record<string, unknown>, name: string, merged: Set<string>): boolean {
    const src = this.alias(name);
    if (src === GIVE_UP) return false;
    if (src === null || typeof src !== 'object' || Array.isArray(src)) {
      giveUp('merge of a scalar or a list');
      return false;
    }
    for (const k of Object.keys(src)) {
      if (Object.hasOwn(out, k)) continue;
      const copy = this.copy((src as Record<string, unknown>)[k]);
      if (copy === GIVE_UP) return false;
      setKey(out, k, copy);
      merged.add(k);
    }
    this.merged = true;
    return true;
  }

  /**
   * A fresh copy of a merged value, as the full loader converts the anchored node again; an
   * anchor set inside it then names the copy (that loader keeps the last conversion).
   */
  copy(v: unknown): unknown {
    if (v === null || typeof v !== 'object') return v;
    if (this.aliased.has(v)) return giveUp('merge copies an aliased collection');
    let out: unknown[] | Record<string, unknown>;
    if (Array.isArray(v)) {
      out = [];
      for (const item of v) {
        const c = this.copy(item);
        if (c === GIVE_UP) return GIVE_UP;
        out.push(c);
      }
    } else {
      out = {};
      for (const k of Object.keys(v)) {
        const c = this.copy((v as Record<string, unknown>)[k]);
        if (c === GIVE_UP) return GIVE_UP;
        setKey(out, k, c);
      }
    }
    if (this.anchored.has(v)) for (const [name, at] of this.definedAt) if (at === v) this.values.set(name, out);
    return out;
  }
}

/**
 * Whether `value` has a map with an integer-like key: beside a merge the full loader keeps no
 * document order for them (yaml-load.ts keepMapOrder stops at a merge key).
 */
export function hasIndexKey(value: unknown, seen = new Set<object>()): boolean {
  if (value === null || typeof value !== 'object' || seen.has(value)) return false;
  seen.add(value);
  if (Array.isArray(value)) return value.some((v) => hasIndexKey(v, seen));
  for (const k of Object.keys(value)) if (INDEX_KEY.test(k) || hasIndexKey((value as Record<string, unknown>)[k], seen)) return true;
  return false;
}
