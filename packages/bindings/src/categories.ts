import type { Grains } from '@brine/core';

/**
 * A category a minion belongs to, with one value (or several, when the source is a list grain).
 * `from` says where the value comes from: `id`, `environment`, `grains.<path>` (dotted), or a
 * constant given as `value`. A bare string names a category with its default source.
 */
export interface CategoryObject {
  name: string;
  from?: string;
  value?: string;
}
export type CategorySpec = string | CategoryObject;

/** Highest precedence first: the node beats its environment beats its OS family beats everyone. */
export const DEFAULT_CATEGORIES: CategoryObject[] = [
  { name: 'node', from: 'id' },
  { name: 'environment', from: 'environment' },
  { name: 'osfamily', from: 'grains.os_family' },
  { name: 'common', value: 'true' },
];

export interface MinionFacts {
  id: string;
  grains: Grains;
  /** The minion's environment; when absent, the `environment` grain is used. */
  environment?: string;
}

/** The resolved categories of one minion: name -> rank (higher is stronger) and lower-cased values. */
export interface Categorization {
  /** Category names, highest precedence first. */
  order: string[];
  rank: Map<string, number>;
  /** The minion's values per category, lower-cased; empty when the minion is in no value. */
  values: Map<string, string[]>;
  /** The same values as the minion has them (for interpolation). */
  raw: Map<string, unknown>;
}

function normalizeSpec(spec: CategorySpec): CategoryObject {
  if (typeof spec !== 'string') return spec;
  return DEFAULT_CATEGORIES.find((c) => c.name === spec) ?? { name: spec, from: `grains.${spec}` };
}

/** Follows a dotted (or colon-separated) path into the grains. */
export function grainAt(grains: Grains, path: string): unknown {
  let cur: unknown = grains;
  for (const part of path.split(/[.:]/)) {
    if (cur === null || typeof cur !== 'object' || Array.isArray(cur)) return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

function sourceValue(spec: CategoryObject, minion: MinionFacts): unknown {
  if (spec.value !== undefined) return spec.value;
  const from = spec.from ?? `grains.${spec.name}`;
  if (from === 'id') return minion.id;
  if (from === 'environment') return minion.environment ?? minion.grains.environment;
  if (from.startsWith('grains.') || from.startsWith('grains:')) return grainAt(minion.grains, from.slice(7));
  return grainAt(minion.grains, from);
}

/** Compares values the way categories do: as strings, without case. */
export function categoryKey(v: unknown): string {
  return String(v).toLowerCase();
}

/** The configured category names, highest precedence first. */
export function categoryNames(specs: CategorySpec[] | undefined): string[] {
  return (specs ?? DEFAULT_CATEGORIES).map((s) => (typeof s === 'string' ? s : s.name));
}

export function categorize(specs: CategorySpec[] | undefined, minion: MinionFacts): Categorization {
  const objs = (specs ?? DEFAULT_CATEGORIES).map(normalizeSpec);
  const order = objs.map((c) => c.name);
  const rank = new Map<string, number>();
  const values = new Map<string, string[]>();
  const raw = new Map<string, unknown>();
  objs.forEach((spec, i) => {
    rank.set(spec.name, objs.length - i);
    const v = sourceValue(spec, minion);
    raw.set(spec.name, v);
    const list = v === undefined || v === null ? [] : Array.isArray(v) ? v : [v];
    values.set(spec.name, list.filter((x) => x !== null && typeof x !== 'object').map(categoryKey));
  });
  return { order, rank, values, raw };
}

/** Precedence of a set of categories: their ranks, highest first. */
export function precedenceOf(cats: Iterable<string>, c: Categorization): number[] {
  return [...new Set(cats)].map((n) => c.rank.get(n) ?? 0).sort((a, b) => b - a);
}

/**
 * Element by element, highest ranks first; a list that runs out first loses. So node+environment
 * beats node, node beats environment+osfamily, and anything conditional beats an unconditional [].
 */
export function comparePrecedence(a: number[], b: number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i];
    const y = b[i];
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    if (x !== y) return x - y;
  }
  return 0;
}

/** Precedence as category names, for people: `['node', 'environment']`. */
export function precedenceNames(p: number[], c: Categorization): string[] {
  return p.map((r) => c.order[c.order.length - r] ?? String(r));
}
