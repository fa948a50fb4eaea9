import { readFileSync } from 'node:fs';
import { yamlLib } from './lazy-yaml.js';

/**
 * Reading a daemon's YAML config the same way for the master and the minion: defaults, then the
 * file, then overrides; every option known and of its kind, or a coded error naming the file.
 * Kinds: `string`, `number` (finite, not negative), `boolean`, `string[]`, `object`, with `?` for
 * "or null"; a daemon checks its own special kinds through `extraKind`.
 */
export interface LoadOptionsSpec<T> {
  file?: string;
  defaults: T;
  overrides?: Partial<T>;
  kinds: Record<string, string>;
  /** Checks a kind this module does not know; undefined means "unknown kind". */
  extraKind?: (kind: string, value: unknown) => boolean | undefined;
  /** How to describe a kind in an error, where its name is not enough. */
  kindText?: Record<string, string>;
  fail: (file: string, detail: string) => Error;
  /** Options not known, all at once; they are left out. Without it they fail, all named in one error. */
  unknown?: (keys: string[]) => void;
}

export function optionKindOk(kind: string, v: unknown, extraKind?: LoadOptionsSpec<unknown>['extraKind']): boolean {
  if (kind.endsWith('?') && v === null) return true;
  const base = kind.replace('?', '');
  switch (base) {
    case 'string':
      return typeof v === 'string';
    case 'number':
      return typeof v === 'number' && Number.isFinite(v) && v >= 0;
    case 'boolean':
      return typeof v === 'boolean';
    case 'string[]':
      return Array.isArray(v) && v.every((x) => typeof x === 'string');
    case 'object':
      return typeof v === 'object' && v !== null && !Array.isArray(v);
  }
  return extraKind?.(base, v) ?? false;
}

export function loadOptions<T>(spec: LoadOptionsSpec<T>): Record<string, unknown> {
  const where = spec.file ?? '-';
  let fromFile: Record<string, unknown> = {};
  if (spec.file) {
    let text: string;
    try {
      text = readFileSync(spec.file, 'utf8');
    } catch (err) {
      throw spec.fail(spec.file, (err as Error).message);
    }
    let parsed: unknown;
    try {
      parsed = yamlLib().parse(text);
    } catch (err) {
      throw spec.fail(spec.file, `bad YAML: ${(err as Error).message}`);
    }
    if (parsed !== null && parsed !== undefined) {
      if (typeof parsed !== 'object' || Array.isArray(parsed)) throw spec.fail(spec.file, 'must be a mapping of options');
      fromFile = parsed as Record<string, unknown>;
    }
  }
  const merged: Record<string, unknown> = { ...spec.defaults, ...fromFile, ...(spec.overrides ?? {}) };
  const unknown = Object.keys(merged).filter((k) => !Object.hasOwn(spec.kinds, k));
  if (unknown.length > 0 && !spec.unknown) throw spec.fail(where, `unknown option${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => `'${k}'`).join(', ')}`);
  for (const k of unknown) delete merged[k];
  if (unknown.length > 0) spec.unknown?.(unknown);
  for (const [key, value] of Object.entries(merged)) {
    const kind = spec.kinds[key]!;
    if (!optionKindOk(kind, value, spec.extraKind)) {
      const text = spec.kindText?.[kind.replace('?', '')] ?? kind.replace('?', ' or null');
      throw spec.fail(where, `option '${key}' must be ${text}`);
    }
  }
  return merged;
}
