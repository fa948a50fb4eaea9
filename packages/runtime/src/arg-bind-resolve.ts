import {
  argBindEntryValue,
  followArgBindPath,
  isGlobalStateArg,
  parseArgBindRefs,
  parseRequisiteRef,
  type ArgBindRef,
  type LowChunk,
  type StateResult,
} from '@brine/core';

/**
 * Runtime half of argument binding: replaces the `${state:id:prop}` references of a chunk's
 * arguments with values read from the referenced states' `new_state`. Only references the
 * chunk's `arg_bind` requisites name are touched (the compiler added them; anything else that
 * looks like `${...}` is left alone).
 *
 * - A string that is exactly one reference takes the value with its type (list, dict, number).
 * - A reference inside a longer string is substituted as text (dicts and lists as JSON).
 * - A missing property, or a referenced state without `new_state`, fails the state with a comment
 *   naming the reference — except in test mode, where the value is not known yet: there the
 *   reference stays as written (`${file:motd:path}`), the placeholder a test run shows.
 */

export type Lookup = (state: string, id: string, resource: string | undefined) => StateResult | undefined;

function asText(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === null || v === undefined) return '';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

class Unresolved extends Error {}

export function bindArguments(chunk: LowChunk, lookup: Lookup, test: boolean): { chunk: LowChunk } | { error: string } {
  const entries = chunk.arg_bind;
  if (!Array.isArray(entries) || entries.length === 0) return { chunk };
  const bound = new Set<string>();
  for (const e of entries) {
    const t = parseRequisiteRef(e);
    if (t) bound.add(`${t.kind}\0${t.value}`);
  }
  const isBound = (r: ArgBindRef) => bound.has(`${r.state}\0${argBindEntryValue(r)}`);

  const valueOf = (ref: ArgBindRef): { value: unknown } | { placeholder: true } => {
    const res = lookup(ref.state, ref.id, ref.resource);
    const who = `${ref.state}.${argBindEntryValue(ref)}`;
    if (!res) throw new Unresolved(`Cannot resolve argument binding ${ref.text}: state ${who} has not run`);
    if (res.new_state === undefined || res.new_state === null) {
      if (test) return { placeholder: true };
      throw new Unresolved(`Cannot resolve argument binding ${ref.text}: state ${who} returned no new_state`);
    }
    const got = followArgBindPath(res.new_state, ref.path);
    if ('missing' in got) {
      if (test) return { placeholder: true };
      throw new Unresolved(`Cannot resolve argument binding ${ref.text}: ${got.missing} in the new_state of ${who}`);
    }
    return { value: got.value };
  };

  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') {
      if (!v.includes('${')) return v;
      const refs = parseArgBindRefs(v).refs.filter(isBound);
      if (refs.length === 0) return v;
      if (refs.length === 1 && refs[0]!.start === 0 && refs[0]!.end === v.length) {
        const got = valueOf(refs[0]!);
        return 'placeholder' in got ? v : structuredClone(got.value);
      }
      let out = '';
      let at = 0;
      for (const r of refs) {
        const got = valueOf(r);
        out += v.slice(at, r.start) + ('placeholder' in got ? r.text : asText(got.value));
        at = r.end;
      }
      return out + v.slice(at);
    }
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === 'object') {
      const o: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) o[k] = walk(x);
      return o;
    }
    return v;
  };

  try {
    const out: LowChunk = { ...chunk };
    for (const [k, v] of Object.entries(chunk)) {
      if (k !== 'name' && isGlobalStateArg(k)) continue;
      out[k] = walk(v);
    }
    if (typeof out.name !== 'string') out.name = asText(out.name);
    return { chunk: out };
  } catch (e) {
    if (e instanceof Unresolved) return { error: e.message };
    throw e;
  }
}
