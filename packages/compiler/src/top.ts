import type { Diagnostic, Grains, Matches, Pillar } from '@brine/core';
import { compilerErrors } from './errors.js';
import type { PositionMap } from './render/types.js';
import { matchTarget, TARGET_TYPES, type TargetOptions, type TargetType } from './target.js';

/**
 * The top stage: the rendered top files of every environment, merged by the configured
 * strategy and matched against one minion, become the matches dictionary `{env: [sls...]}`.
 */
export type TopMergeStrategy = 'merge' | 'same' | 'merge_all';

/** One env's rendered top file: `{env: {target: [sls | {match: type} | {env: sls}]}}`. */
export type TopData = Record<string, unknown>;

export interface TopInput {
  /** Rendered top files, keyed by the env they were found in, in env order (base first). */
  tops: Record<string, TopData>;
  minion: { id: string; grains: Grains; pillar?: Pillar };
  strategy?: TopMergeStrategy;
  /** With `same`: the env whose top file stands in for an env without one. */
  defaultTop?: string;
  /** Only this env's section (`saltenv=` on the command line). */
  saltenv?: string;
  /** Matches from master_tops plugins, added after the top file's (or before, with tops first). */
  extMatches?: Matches;
  masterTopsFirst?: boolean;
  targetOptions?: TargetOptions;
  /** Environments that exist; `{env: sls}` items naming others are dropped like Salt does. */
  envs?: string[];
  /** For diagnostics: the file each top came from, by env. */
  files?: Record<string, string>;
  /** For diagnostics: where each section and target sits in its top file, by env. */
  positions?: Record<string, PositionMap>;
}

type Section = Map<string, unknown[]>;

export interface TopOutput {
  matches: Matches;
  /** The merged top, for `state.show_top`-style inspection. */
  merged: Record<string, Record<string, unknown[]>>;
}

export function compileTop(input: TopInput): { value: TopOutput; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = [];
  const strategy = input.strategy ?? 'merge';
  const report = (env: string, detail: string, section?: string, target?: string, severity: 'error' | 'warning' = 'error') => {
    const ids = input.positions?.[env]?.ids;
    const p = section !== undefined ? ((target !== undefined ? ids?.[section]?.states[target] : undefined) ?? ids?.[section]?.pos) : undefined;
    diagnostics.push(
      compilerErrors.diag(
        'BRINE_ERR_COMPILE_TOP',
        { env, detail },
        { file: input.files?.[env] ?? `${env}:top.sls`, env, line: p?.line, column: p?.column },
        severity,
      ),
    );
  };

  // Validate the shape of every top file first, so every problem is reported at once.
  const tops = readTops(input, report);
  const merged = mergeTops(tops, strategy, input.defaultTop, diagnostics);
  const matches = matchTops(input, merged, report);
  for (const [env, list] of Object.entries(input.extMatches ?? {})) {
    const mine = matches[env] ?? [];
    const [first, second] = input.masterTopsFirst ? [list, mine] : [mine, list];
    matches[env] = [...first, ...second.filter((s) => !first.includes(s))];
  }

  const mergedOut: Record<string, Record<string, unknown[]>> = {};
  for (const [env, section] of merged) mergedOut[env] = Object.fromEntries(section);
  return { value: { matches, merged: mergedOut }, diagnostics };
}

type Report = (env: string, detail: string, section?: string, target?: string, severity?: 'error' | 'warning') => void;

/** Each top file's sections, the malformed parts reported and left out. */
function readTops(input: TopInput, report: Report): Array<[string, Record<string, Section>]> {
  const tops: Array<[string, Record<string, Section>]> = [];
  for (const [fileEnv, data] of Object.entries(input.tops)) {
    const sections: Record<string, Section> = {};
    if (data === null || data === undefined) {
      tops.push([fileEnv, sections]);
      continue;
    }
    if (typeof data !== 'object' || Array.isArray(data)) {
      report(fileEnv, `must be a dictionary of environments, got ${describe(data)}`);
      continue;
    }
    for (const [env, body] of Object.entries(data)) {
      if (env === 'include') continue;
      if (body === null || typeof body !== 'object' || Array.isArray(body)) {
        report(fileEnv, `section '${env}' must map targets to lists of SLS, got ${describe(body)}`, env);
        continue;
      }
      const section: Section = new Map();
      for (const [tgt, list] of Object.entries(body as Record<string, unknown>)) {
        if (typeof list === 'string') section.set(tgt, [list]);
        else if (Array.isArray(list)) section.set(tgt, list);
        else report(fileEnv, `target '${tgt}' in section '${env}' must have a list of SLS, got ${describe(list)}`, env, tgt);
      }
      sections[env] = section;
    }
    tops.push([fileEnv, sections]);
  }

  return tops;
}

/** The sections of all top files merged by the strategy (Salt's top_file_merging_strategy). */
function mergeTops(
  tops: Array<[string, Record<string, Section>]>,
  strategy: TopMergeStrategy,
  defaultTop: string | undefined,
  diagnostics: Diagnostic[],
): Map<string, Section> {
  const merged = new Map<string, Section>();
  const sectionOf = (env: string) => {
    let s = merged.get(env);
    if (!s) merged.set(env, (s = new Map()));
    return s;
  };
  if (strategy === 'merge') {
    // base is authoritative: its sections win; other envs may only add their own env's section.
    const base = tops.find(([e]) => e === 'base');
    if (base) for (const [env, section] of Object.entries(base[1])) for (const [t, l] of section) sectionOf(env).set(t, l);
    const fromBase = new Set(merged.keys());
    for (const [fileEnv, sections] of tops) {
      if (fileEnv === 'base') continue;
      for (const [env, section] of Object.entries(sections)) {
        if (env !== fileEnv || fromBase.has(env)) continue;
        for (const [t, l] of section) sectionOf(env).set(t, l);
      }
    }
  } else if (strategy === 'same') {
    const fallback = tops.find(([e]) => e === (defaultTop ?? 'base'))?.[1] ?? {};
    for (const [fileEnv, sections] of tops) {
      const own = Object.keys(sections).length > 0 ? sections : fallback;
      const section = own[fileEnv];
      if (section) for (const [t, l] of section) sectionOf(fileEnv).set(t, l);
    }
  } else if (strategy === 'merge_all') {
    for (const [, sections] of tops) {
      for (const [env, section] of Object.entries(sections)) {
        const into = sectionOf(env);
        for (const [t, l] of section) {
          const prev = into.get(t);
          if (!prev) {
            into.set(t, l);
            continue;
          }
          const matchPrev = prev.find(isMatchItem);
          const matchNew = l.find(isMatchItem);
          const out: unknown[] = [];
          const m = matchNew ?? matchPrev;
          if (m) out.push(m);
          for (const x of prev) if (!isMatchItem(x)) out.push(x);
          for (const x of l) if (!isMatchItem(x) && !out.includes(x)) out.push(x);
          into.set(t, out);
        }
      }
    }
  } else {
    diagnostics.push(compilerErrors.diag('BRINE_ERR_COMPILE_BAD_MERGE_STRATEGY', { strategy }));
  }

  return merged;
}

/** The SLS of the targets that match the minion, by env. */
function matchTops(input: TopInput, merged: Map<string, Section>, report: Report): Matches {
  const matches: Matches = {};
  const add = (env: string, sls: string) => (matches[env] ??= []).push(sls);
  for (const [env, section] of merged) {
    if (input.saltenv && env !== input.saltenv) continue;
    for (const [tgt, items] of section) {
      const { type, unknown } = topTargetType(items);
      for (const t of unknown) report(env, `target '${tgt}': unknown match type '${String(t)}' (one of ${TARGET_TYPES.join(', ')})`, env, tgt);
      let hit = false;
      try {
        hit = matchTarget(tgt, type, input.minion, input.targetOptions);
      } catch (e) {
        // Salt's compound matcher reads a malformed expression as "no match" (it only logs it).
        if (type === 'compound') report(env, `${(e as Error).message}; the target matches nothing, as in Salt`, env, tgt, 'warning');
        else report(env, (e as Error).message, env, tgt);
        continue;
      }
      if (!hit) continue;
      matches[env] ??= [];
      for (const item of items) {
        if (typeof item === 'string') add(env, item);
        else if (item && typeof item === 'object' && !isMatchItem(item)) {
          const entries = Object.entries(item as Record<string, unknown>);
          if (entries.length !== 1 || typeof entries[0]![1] !== 'string') {
            report(env, `target '${tgt}': bad item ${JSON.stringify(item)} (an SLS name, '- match: type' or '- env: sls')`, env, tgt);
            continue;
          }
          const [otherEnv, sls] = entries[0] as [string, string];
          if (input.envs && !input.envs.includes(otherEnv)) continue;
          add(otherEnv, sls);
        } else if (!isMatchItem(item)) {
          report(env, `target '${tgt}': bad item ${JSON.stringify(item)}`, env, tgt);
        }
      }
    }
  }
  return matches;
}

/**
 * The matcher of one top-file target from its items: the last `- match: type` item, an unknown
 * type standing for compound; Salt's default in top files is compound ('web*', 'not web*',
 * 'G@os:Debian and web*'). The pillar top guard reads the same answer as compileTop.
 */
export function topTargetType(items: unknown[]): { type: TargetType; unknown: unknown[] } {
  let type: TargetType = 'compound';
  const unknown: unknown[] = [];
  for (const item of items) {
    if (!isMatchItem(item)) continue;
    const t = (item as { match: unknown }).match;
    if (typeof t === 'string' && TARGET_TYPES.includes(t as TargetType)) type = t as TargetType;
    else {
      unknown.push(t);
      type = 'compound';
    }
  }
  return { type, unknown };
}

function isMatchItem(item: unknown): boolean {
  return !!item && typeof item === 'object' && !Array.isArray(item) && Object.keys(item).length === 1 && 'match' in item;
}

export function describe(v: unknown): string {
  if (v === null || v === undefined) return 'nothing';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'a dictionary';
  return `${typeof v} ${JSON.stringify(v)}`;
}
