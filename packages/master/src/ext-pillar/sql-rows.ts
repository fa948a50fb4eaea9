import { isDict, keysOf, setKey, type Pillar } from '@brine/core';
import { ExtPillarFailure } from './ext-source.js';

/** One query of a SQL pillar, with Salt's sql_base options. */
export interface SqlQuery {
  /** The mapping key its rows go under (a named query), or null: the pillar's top level. */
  root: string | null;
  query: string;
  depth: number;
  asList: boolean;
  withLists: number[];
  ignoreNull: boolean;
}

/** What a query returned: column names and rows of values, in order. */
export interface SqlRows {
  fields: string[];
  rows: unknown[][];
}

/**
 * The queries of one `ext_pillar: - postgres: ...` entry, as Salt's sql_base reads them: a list
 * (each a query, `[query, depth]` or `{query, ...}`, rows at the top level) or a mapping of
 * names to those (rows under each name, names in sorted order).
 */
export function parseSqlQueries(value: unknown, where: string): SqlQuery[] {
  const fail = (detail: string) => new ExtPillarFailure(`${where}: ${detail}`);
  const entries: Array<[string | null, unknown]> = Array.isArray(value)
    ? value.map((v) => [null, v])
    : isDict(value)
      ? keysOf(value)
          .sort()
          .map((k) => [k, value[k]])
      : [];
  if (entries.length === 0) throw fail('expected a list of queries or a mapping of names to queries');
  return entries.map(([root, q]) => {
    const base = { root, depth: 0, asList: false, withLists: [] as number[], ignoreNull: false };
    if (typeof q === 'string') return { ...base, query: q };
    if (Array.isArray(q) && typeof q[0] === 'string') return { ...base, query: q[0], depth: Number(q[1] ?? 0) };
    if (!isDict(q) || typeof q.query !== 'string') throw fail(`${root ?? 'a query'}: expected a query text, [query, depth] or {query: ..., depth: ...}`);
    if (q.as_json) throw fail(`${root ?? 'a query'}: as_json is not supported`);
    const wl = q.with_lists;
    const withLists = typeof wl === 'string' ? wl.split(',').map((s) => Number(s)) : Array.isArray(wl) ? wl.map(Number) : [];
    if (withLists.some((n) => !Number.isInteger(n))) throw fail(`${root ?? 'a query'}: with_lists must be level numbers`);
    return { ...base, query: q.query, depth: Number(q.depth ?? 0), asList: q.as_list === true, withLists, ignoreNull: q.ignore_null === true };
  });
}

/** A value as a mapping key (Python dict keys are the values; JSON gives them as text). */
function keyOf(v: unknown): string {
  return v === null || v === undefined ? 'null' : String(v);
}

/**
 * Folds the rows of each query into pillar as Salt's sql_base does: the first `depth` columns
 * are nested keys, the rest named values below them; `as_list` turns repeated keys into lists,
 * `with_lists` turns the mappings at those levels (1-based) into lists of their values, and
 * `ignore_null` leaves NULL values out. A named query replaces what an earlier one of that name made.
 */
export function rowsToPillar(results: Array<{ q: SqlQuery; r: SqlRows }>): Pillar {
  const result: Pillar = {};
  for (const { q, r } of results) {
    let focus = result;
    if (q.root !== null) setKey(result, q.root, (focus = {}));
    foldRows(focus, q, r);
  }
  return result;
}

function foldRows(focus: Pillar, q: SqlQuery, { fields, rows }: SqlRows): void {
  const n = fields.length;
  if (n === 0) throw new ExtPillarFailure('a query returned no columns');
  const depth = q.depth === 0 || q.depth >= n ? n - 1 : q.depth;
  const lists = new Set(q.withLists);
  // mappings to turn into lists afterwards, with the keys concerned, in the order first seen
  const listify = new Map<Pillar, string[]>();
  const mark = (d: Pillar, k: string) => {
    const keys = listify.get(d) ?? [];
    if (!listify.has(d)) listify.set(d, keys);
    if (!keys.includes(k)) keys.push(k);
  };
  const has = (d: Pillar, k: string) => Object.hasOwn(d, k);
  for (const row of rows) {
    let crd = focus;
    for (let i = 0; i < depth - 1; i++) crd = descend(crd, keyOf(row[i]), lists.has(i + 1), q.asList, mark);
    if (depth === n - 1) {
      // the last column is the value, the one before its key (with one column, it is both)
      const key = keyOf(row.at(n - 2));
      const val = row[n - 1];
      if ((q.asList && has(crd, key)) || lists.has(n - 1)) {
        const cur = has(crd, key) ? crd[key] : [];
        const arr = Array.isArray(cur) ? cur : [cur];
        arr.push(val);
        setKey(crd, key, arr);
      } else if (!q.ignoreNull || val !== null) setKey(crd, key, val);
      continue;
    }
    const key = keyOf(row[depth - 1]);
    if (!has(crd, key)) setKey(crd, key, {});
    if (lists.has(depth)) mark(crd, key);
    crd = crd[key] as Pillar;
    for (let i = depth; i < n; i++) {
      const name = fields[i]!;
      if (lists.has(i + 1)) mark(crd, name);
      if (q.asList && has(crd, name)) {
        const cur = crd[name];
        setKey(crd, name, Array.isArray(cur) ? [...cur, row[i]] : [cur, row[i]]);
      } else if (!q.ignoreNull || row[i] !== null) setKey(crd, name, row[i]);
    }
  }
  for (const [d, keys] of [...listify].reverse()) {
    for (const k of keys) {
      const v = d[k];
      if (isDict(v))
        setKey(
          d,
          k,
          keysOf(v).map((x) => v[x]),
        );
      else if (Array.isArray(v)) setKey(d, k, [v]);
    }
  }
}

/** One level down by `key`: a new mapping, the mapping there, or one added beside what is there. */
function descend(crd: Pillar, key: string, listed: boolean, asList: boolean, mark: (d: Pillar, k: string) => void): Pillar {
  if (listed) mark(crd, key);
  const temp: Pillar = {};
  if (!Object.hasOwn(crd, key)) setKey(crd, key, temp);
  else if (Array.isArray(crd[key])) (crd[key] as unknown[]).push(temp);
  else if (!isDict(crd[key])) setKey(crd, key, asList ? [crd[key], temp] : temp);
  else return crd[key] as Pillar;
  return temp;
}
