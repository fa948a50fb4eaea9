import type { Layer } from './bindings-source.js';

/** How a binding produces its value. */
export type ValueSpec =
  | { kind: 'to'; to: unknown }
  | { kind: 'first_found'; names: unknown[] }
  | { kind: 'lookup_of'; name: unknown }
  | { kind: 'hash_lookup'; name: unknown; key: unknown }
  | { kind: 'none' };

export type ConflictResolution = 'error' | 'merge' | 'append' | 'priority' | 'ignore';

export interface MultibindOptions {
  conflict_resolution: ConflictResolution;
  /** false, true (all the way) or a number of levels. */
  flatten: boolean | number;
  uniq: boolean;
  priority_on_named: boolean;
  priority_on_unnamed: boolean;
}

/** One `bind:` entry, flattened out of its file and the `when:` blocks around it. */
export interface Binding {
  layer: Layer;
  root: string;
  /** Path relative to the root: `ntp/bindings/default.yaml`. */
  file: string;
  line: number;
  /** The logical name of the bindings file: `ntp::default`. */
  bindings: string;
  /** Conditions of every enclosing `when:`, outermost first, as written. */
  when: Array<[category: string, value: string]>;
  /** The pillar name bound (or, for a contribution, its key/name within the multibind). */
  name?: string;
  type?: string;
  value: ValueSpec;
  multibind?: { id: string; type: 'hash' | 'array'; options: MultibindOptions };
  /** The multibind this binding contributes to. */
  in?: string;
  abstract: boolean;
  override: boolean;
  /** Position across all loaded files, for stable ordering. */
  seq: number;
}

/** `ntp/bindings/default.yaml:7 (site)` — how a binding is named to people. */
export function placeOf(b: Pick<Binding, 'file' | 'line' | 'layer'>): string {
  return `${b.file}:${b.line} (${b.layer})`;
}
