import { isDict, keysOf, type Diagnostic, type Pillar } from '@brine/core';
import { mergeSources, type MergeStrategy } from './merge-strategy.js';

/** One source's pillar for a minion, named as `brine pillar explain` names it. */
export interface PillarPart {
  label: string;
  pillar: Pillar;
  diagnostics: Diagnostic[];
}

/**
 * The pillar roots' part and the ext_pillar parts merged in Salt's order: the pillar roots first
 * and each ext_pillar over it in config order, or (ext_pillar_first) the ext_pillar parts first
 * and the pillar roots' over them.
 */
export function assemblePillar(
  roots: PillarPart,
  ext: PillarPart[],
  o: { extFirst: boolean; strategy: MergeStrategy; mergeLists: boolean },
): { pillar: Pillar; diagnostics: Diagnostic[]; parts: PillarPart[] } {
  const parts = o.extFirst ? [...ext, roots] : [roots, ...ext];
  if (ext.length === 0) return { pillar: roots.pillar, diagnostics: roots.diagnostics, parts };
  let pillar: Pillar = {};
  for (const p of parts) pillar = mergeSources(pillar, p.pillar, o.strategy, o.mergeLists);
  return { pillar, diagnostics: parts.flatMap((p) => p.diagnostics), parts };
}

/** Every path of a mapping (`a`, `a.b`, ...), nested mappings and their leaves alike. */
function pathsOf(v: Pillar, prefix = '', out = new Set<string>(), depth = 0): Set<string> {
  if (depth > 64) return out;
  for (const k of keysOf(v)) {
    const p = prefix ? `${prefix}.${k}` : k;
    out.add(p);
    const x = v[k];
    if (isDict(x)) pathsOf(x, p, out, depth + 1);
  }
  return out;
}

/** The leaf paths of the merged pillar under `name` (itself included), `:` read as Salt's delimiter. */
function leavesUnder(pillar: Pillar, name: string): string[] {
  const out: string[] = [];
  const walk = (v: unknown, p: string, depth: number) => {
    if (isDict(v) && keysOf(v).length > 0 && depth < 64) for (const k of keysOf(v)) walk(v[k], `${p}.${k}`, depth + 1);
    else out.push(p);
  };
  let v: unknown = pillar;
  for (const seg of name.split('.')) {
    if (!isDict(v) || !Object.hasOwn(v, seg)) return [];
    v = v[seg];
  }
  walk(v, name, 0);
  return out;
}

/** Where each value under `name` came from: the sources holding its path, the last one (the winner) first. */
export function pillarSources(pillar: Pillar, parts: PillarPart[], name: string): Array<{ name: string; value: unknown; sources: string[] }> {
  const dotted = name.replaceAll(':', '.');
  const leaves = leavesUnder(pillar, dotted);
  if (leaves.length === 0) return [];
  const sets = parts.map((p) => ({ label: p.label, paths: pathsOf(p.pillar) }));
  return leaves.map((leaf) => {
    let value: unknown = pillar;
    for (const seg of leaf.split('.')) value = (value as Pillar)[seg];
    const sources = sets.filter((s) => s.paths.has(leaf)).map((s) => s.label);
    return { name: leaf, value, sources: sources.reverse() };
  });
}

/** The text of `brine pillar explain` for names that come from pillar sources, not bindings. */
export function formatSources(found: Array<{ name: string; value: unknown; sources: string[] }>): string {
  const out: string[] = [];
  for (const f of found) {
    out.push(`${f.name}: ${JSON.stringify(f.value)}`);
    out.push(`    from: ${f.sources[0] ?? '(merged)'}`);
    if (f.sources.length > 1) out.push(`    shadows: ${f.sources.slice(1).join(', ')}`);
  }
  return out.length ? out.join('\n') + '\n' : '';
}
