import type { MultibindOptions } from './binding.js';
import { deepMerge, isPlainObject } from './pillar-tree.js';
import { pushTo } from './push-to.js';

/** One evaluated contribution, already in priority order (strongest first). */
export interface Contribution {
  key?: string;
  value: unknown;
  /** Equal for contributions of the same layer and precedence. */
  level: string;
  place: string;
}

interface Produced {
  value: unknown;
  /** Per contribution: did it make it into the value. */
  used: boolean[];
  /** Problems, each with the index of the contribution to point at. */
  errors: Array<{ detail: string; at: number }>;
}

/** Array flattening: true all the way, a number that many levels, false not at all. */
function flattenBy(list: unknown[], flatten: boolean | number): unknown[] {
  const depth = flatten === true ? Infinity : flatten === false ? 0 : flatten;
  return depth > 0 ? (list as unknown[]).flat(depth) : list;
}

/** Keeps the first of equal elements (compared as JSON). */
function uniqOf(list: unknown[]): unknown[] {
  const seen = new Set<string>();
  return list.filter((v) => {
    const k = JSON.stringify(v);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/**
 * A hash multibind: each contribution's name is its key. Per key, by conflict_resolution:
 * priority (default) — the strongest wins, a tie at the top is an error; error — any second
 * contribution of a key is an error; ignore — the strongest (then the first written) wins
 * silently; merge — dictionaries merge recursively, stronger keys win; append — the values in
 * priority order make a list, shaped by flatten and uniq.
 */
export function produceHash(contribs: Contribution[], o: MultibindOptions): Produced {
  const used = contribs.map(() => false);
  const errors: Produced['errors'] = [];
  const byKey = new Map<string, number[]>();
  contribs.forEach((c, i) => {
    if (c.key === undefined) {
      errors.push({ detail: `the contribution at ${c.place} has no name; in a hash multibind the name is the key`, at: i });
      return;
    }
    pushTo(byKey, c.key, i);
  });
  const value: Record<string, unknown> = {};
  for (const [key, idx] of byKey) {
    const top = contribs[idx[0]];
    const ties = idx.filter((i) => contribs[i].level === top.level);
    const places = (list: number[]) => list.map((i) => contribs[i].place).join(', ');
    switch (o.conflict_resolution) {
      case 'priority':
        if (ties.length > 1) {
          errors.push({ detail: `key '${key}' is contributed at the same precedence by ${places(ties)}`, at: ties[1] });
          continue;
        }
        value[key] = top.value;
        used[idx[0]] = true;
        break;
      case 'error':
        if (idx.length > 1) {
          errors.push({ detail: `key '${key}' is contributed more than once (conflict_resolution: error): ${places(idx)}`, at: idx[1] });
          continue;
        }
        value[key] = top.value;
        used[idx[0]] = true;
        break;
      case 'ignore':
        value[key] = top.value;
        used[idx[0]] = true;
        break;
      case 'merge': {
        const bad = idx.filter((i) => !isPlainObject(contribs[i].value));
        if (bad.length && idx.length > 1) {
          errors.push({ detail: `key '${key}' cannot be merged: ${places(bad)} contribute a value that is not a dictionary`, at: bad[0] });
          continue;
        }
        let merged: unknown = contribs[idx[idx.length - 1]].value;
        for (let j = idx.length - 2; j >= 0; j--) merged = deepMerge(merged, contribs[idx[j]].value);
        value[key] = merged;
        for (const i of idx) used[i] = true;
        break;
      }
      case 'append': {
        let list = flattenBy(
          idx.map((i) => contribs[i].value),
          o.flatten,
        );
        if (o.uniq) list = uniqOf(list);
        value[key] = list;
        for (const i of idx) used[i] = true;
        break;
      }
    }
  }
  return { value, used, errors };
}

/**
 * An array multibind: contributions are elements, strongest first. Named ones with the same name
 * keep only the strongest (priority_on_named, default true; a tie is an error); unnamed ones are
 * all kept unless priority_on_unnamed, which keeps only the strongest. Then flatten and uniq.
 */
export function produceArray(contribs: Contribution[], o: MultibindOptions): Produced {
  const used = contribs.map(() => false);
  const errors: Produced['errors'] = [];
  const groups = new Map<string, number[]>();
  contribs.forEach((c, i) => {
    const prioritized = c.key === undefined ? o.priority_on_unnamed : o.priority_on_named;
    if (!prioritized) {
      used[i] = true;
      return;
    }
    const g = c.key === undefined ? '\0unnamed' : c.key;
    pushTo(groups, g, i);
  });
  for (const [g, idx] of groups) {
    const ties = idx.filter((i) => contribs[i].level === contribs[idx[0]].level);
    if (ties.length > 1) {
      const what = g === '\0unnamed' ? 'unnamed elements (priority_on_unnamed)' : `element '${g}'`;
      errors.push({ detail: `${what} contributed at the same precedence by ${ties.map((i) => contribs[i].place).join(', ')}`, at: ties[1] });
      continue;
    }
    used[idx[0]] = true;
  }
  let list = flattenBy(
    contribs.filter((_, i) => used[i]).map((c) => c.value),
    o.flatten,
  );
  if (o.uniq) list = uniqOf(list);
  return { value: list, used, errors };
}
