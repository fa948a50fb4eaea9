import type { LowChunk } from './types.js';

/** The running dict key: `state_|-id_|-name_|-fun`. */
export function chunkTag(chunk: Pick<LowChunk, 'state' | '__id__' | 'name' | 'fun'>): string {
  return `${chunk.state}_|-${chunk.__id__}_|-${chunk.name}_|-${chunk.fun}`;
}

/** Requisite kinds as they appear in SLS, with their `_in` and `_any` forms. */
export const REQUISITES = ['require', 'watch', 'onchanges', 'onfail', 'prereq', 'use', 'listen'] as const;
export type RequisiteKind = (typeof REQUISITES)[number];
export const ANY_REQUISITES = ['require_any', 'watch_any', 'onchanges_any', 'onfail_any'] as const;
export const IN_REQUISITES = REQUISITES.map((r) => `${r}_in`);
/** Every key that holds a requisite list in a state declaration. */
export const REQUISITE_KEYS: ReadonlySet<string> = new Set<string>([...REQUISITES, ...ANY_REQUISITES, ...IN_REQUISITES, 'prerequired', 'arg_bind']);
