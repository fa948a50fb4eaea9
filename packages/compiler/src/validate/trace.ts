/**
 * From rendered high data full of markers to the seed's `parameters` and `warnings` sections:
 * which parameters each state uses (nested paths as nested dicts, defaults kept), which of them
 * its META does not document, and what could not be traced.
 */
import type { ParamKey, ParamNode, ParamRecorder, ParamRef } from './recording-params.js';

export type ParamTree = Record<string, unknown>;

/** `rg_name.your_rg`, `locations[0].name`. */
export function dottedPath(path: ParamKey[]): string {
  let out = '';
  for (const k of path) out += typeof k === 'number' ? `[${k}]` : out === '' ? k : `.${k}`;
  return out;
}

/** Every marker in an ID's key and body (keys and strings at any depth). */
export function refsInDecl(recorder: ParamRecorder, id: string, body: unknown): ParamRef[] {
  const out = recorder.refsIn(id);
  const walk = (v: unknown): void => {
    if (typeof v === 'string' || v instanceof String) out.push(...recorder.refsIn(String(v)));
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v !== null && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        out.push(...recorder.refsIn(k));
        walk(x);
      }
    }
  };
  walk(body);
  return out;
}

function isDict(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function container(next: ParamKey): unknown[] | Record<string, unknown> {
  return typeof next === 'number' ? [] : {};
}

function merge(into: unknown, value: unknown): unknown {
  if (isDict(into) && isDict(value)) {
    for (const [k, v] of Object.entries(value)) into[k] = k in into ? merge(into[k], v) : v;
    return into;
  }
  if (Array.isArray(into) && Array.isArray(value)) {
    value.forEach((v, i) => {
      if (v === null) return;
      while (into.length <= i) into.push(null);
      into[i] = into[i] === null ? v : merge(into[i], v);
    });
    return into;
  }
  // A leaf ('' or a default) gives way to what is known of its inside.
  if (isDict(value) || Array.isArray(value)) return value;
  return into;
}

/** Adds the parameter a node stands for to a state's tree, along its path. */
export function addPath(tree: ParamTree, node: ParamNode): void {
  const path = node.path;
  if (path.length === 0) return;
  let cur: unknown = tree;
  for (let i = 0; i < path.length - 1; i++) {
    const k = path[i]!;
    const next = path[i + 1]!;
    if (Array.isArray(cur)) {
      const idx = k as number;
      while (cur.length <= idx) cur.push(null);
      if (cur[idx] === null || typeof cur[idx] !== 'object') cur[idx] = container(next);
      cur = cur[idx];
    } else {
      const d = cur as Record<string, unknown>;
      const key = String(k);
      if (d[key] === undefined || d[key] === null || typeof d[key] !== 'object') d[key] = container(next);
      cur = d[key];
    }
  }
  const last = path[path.length - 1]!;
  const value = node.shape();
  if (Array.isArray(cur)) {
    const idx = last as number;
    while (cur.length <= idx) cur.push(null);
    cur[idx] = cur[idx] === null ? value : merge(cur[idx], value);
  } else {
    const d = cur as Record<string, unknown>;
    const key = String(last);
    d[key] = key in d ? merge(d[key], value) : value;
  }
}

/**
 * The parameters a state uses that its META does not document. META `params` maps a name to
 * its documentation; a dictionary parameter documents its keys under `properties`, a list
 * parameter its items under `items` (as in JSON schema). An undocumented parameter is reported
 * once, not again for each of its keys.
 */
export function missingFromMeta(used: unknown, doc: unknown, prefix = ''): string[] {
  const out: string[] = [];
  if (isDict(used)) {
    for (const [k, v] of Object.entries(used)) {
      const name = prefix === '' ? k : `${prefix}.${k}`;
      if (!isDict(doc) || !(k in doc)) {
        out.push(name);
        continue;
      }
      const entry = doc[k];
      if (isDict(entry) && isDict(v) && 'properties' in entry) out.push(...missingFromMeta(v, entry.properties, name));
      else if (isDict(entry) && Array.isArray(v) && 'items' in entry) out.push(...missingFromMeta(v, entry.items, name));
    }
  } else if (Array.isArray(used)) {
    // `doc` documents every item alike.
    const seen = new Set<string>();
    for (const item of used) {
      if (!isDict(item)) continue;
      for (const m of missingFromMeta(item, isDict(doc) && isDict(doc.properties) ? doc.properties : doc, `${prefix}[]`)) {
        if (!seen.has(m)) {
          seen.add(m);
          out.push(m);
        }
      }
    }
  }
  return out;
}
