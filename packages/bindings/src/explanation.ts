import type { Layer } from './bindings-source.js';

/** One binding as `brine pillar explain` shows it. */
export interface BindingRef {
  layer: Layer;
  root: string;
  file: string;
  line: number;
  /** The logical name of its bindings file: `ntp::default`. */
  bindings: string;
  /** The `when:` conditions it sits under, as written (empty: unconditional). */
  categories: Record<string, string>;
  /** The categories making its precedence, highest first. */
  precedence: string[];
  kind: 'to' | 'lookup_of' | 'first_found' | 'hash_lookup' | 'multibind' | 'abstract';
  abstract?: true;
  override?: true;
}

/** A contribution (`in:`) to a multibind. */
export interface ContributionRef extends BindingRef {
  /** Its name: the key in a hash multibind, the element's name in an array one. */
  key?: string;
  value?: unknown;
  /** False when a higher contribution or the conflict resolution left it out. */
  used: boolean;
}

/** Why a name has its value for one minion. */
export interface Explanation {
  name: string;
  /** Absent when the name failed (see errors). */
  value?: unknown;
  winner: BindingRef;
  /** Every other binding of the name that applies to the minion, strongest first. */
  shadowed: BindingRef[];
  /** The names a lookup consulted, in order. */
  lookups?: string[];
  multibind?: { id: string; type: 'hash' | 'array'; contributions: ContributionRef[] };
  /** Codes of the errors that left the name out of the pillar, or that concern its bindings. */
  errors?: string[];
}

function describe(b: BindingRef): string {
  const when = Object.entries(b.categories);
  const cond = when.length ? `when ${when.map(([k, v]) => `${k}=${v}`).join(', ')}` : 'unconditional';
  const flags = [b.abstract ? 'abstract' : '', b.override ? 'override' : ''].filter(Boolean).join(', ');
  return `${b.file}:${b.line} [${b.layer}] ${b.bindings}, ${cond}${flags ? ` (${flags})` : ''}`;
}

function show(v: unknown): string {
  return JSON.stringify(v);
}

/**
 * The text of `brine pillar explain <minion> <name>`: the winning binding, what it shadowed, the
 * contributions of a multibind and the lookups made. A name that is only a prefix of bound names
 * (`apache` for `apache.port`) explains each of them.
 */
export function formatExplain(explain: Record<string, Explanation>, name: string): string {
  const names =
    name in explain
      ? [name]
      : Object.keys(explain)
          .filter((n) => n.startsWith(`${name}.`))
          .sort();
  if (names.length === 0) return `${name}: not bound for this minion\n`;
  const out: string[] = [];
  for (const n of names) {
    const e = explain[n];
    out.push(e.errors?.length && e.value === undefined ? `${n}: (left out: ${e.errors.join(', ')})` : `${n}: ${show(e.value)}`);
    out.push(`    bound by: ${describe(e.winner)}${e.winner.kind !== 'to' && e.winner.kind !== 'abstract' ? ` (${e.winner.kind})` : ''}`);
    if (e.lookups?.length) out.push(`    looked up: ${e.lookups.join(', ')}`);
    if (e.multibind) {
      // + made it into the value, - was outranked or failed.
      out.push(`    multibind ${e.multibind.id} (${e.multibind.type}), contributions:`);
      for (const c of e.multibind.contributions) {
        const key = c.key !== undefined ? `${c.key} = ` : '';
        out.push(`      ${c.used ? '+' : '-'} ${key}${c.value === undefined ? '(failed)' : show(c.value)}  ${describe(c)}`);
      }
    }
    if (e.shadowed.length) {
      out.push('    shadows:');
      for (const s of e.shadowed) out.push(`      ${describe(s)}`);
    }
    if (e.errors?.length && e.value !== undefined) out.push(`    errors: ${e.errors.join(', ')}`);
  }
  return out.join('\n') + '\n';
}
