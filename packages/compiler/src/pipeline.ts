import { hasErrors, type Diagnostic, type Grains, type HighData, type LowChunk, type Matches, type Pillar } from '@brine/core';
import type { HostAnswers, HostCallRecord } from '@brine/jinja';
import { argBind } from './arg-bind.js';
import { compileLow } from './compile-low.js';
import { addHostCalls, gatherHigh, type IdOrigin, type MetaSections } from './gather.js';
import { orderChunks } from './order.js';
import { reconcile } from './reconcile.js';
import { renderSls } from './render/index.js';
import { reusingRenders } from './render-reuse.js';
import { splitArgDicts } from './split-args.js';
import type { PositionMap, RenderContext, RenderInput, RenderOutput, SaltHelpers } from './render/types.js';
import type { StateTree } from './state-tree.js';
import { compileTop, type TopData, type TopMergeStrategy } from './top.js';
import { verifyHigh, verifyLow, type StateSchema } from './verify.js';

/**
 * The stages chained the way `state.show_*` and `state.apply` need them. Each step is one of the
 * pure stage functions; this file only decides which run, in which order, and stops at the
 * first stage that reports an error (later stages would only repeat it).
 */
export interface CompileOptions {
  tree: StateTree;
  minion: { id: string; grains: Grains };
  pillar?: Pillar;
  params?: Record<string, unknown>;
  salt?: SaltHelpers;
  extra?: Record<string, unknown>;
  strategy?: TopMergeStrategy;
  defaultTop?: string;
  /** Restrict to one environment (`saltenv=`). */
  saltenv?: string;
  /** master_tops results. */
  extMatches?: Matches;
  masterTopsFirst?: boolean;
  nodegroups?: Record<string, string | string[]>;
  stateTop?: string;
  schema?: StateSchema;
  /** Defaults to renderSls (nunjucks then YAML). */
  render?: (input: RenderInput) => RenderOutput;
  /** Answers to the host calls of the templates (see compileAsking). */
  hostAnswers?: HostAnswers;
}

export interface Compiled {
  matches: Matches;
  /** High data as gathered: before extend, requisite_in and exclude (show_highstate). */
  rawHigh: HighData;
  /** Reconciled high data. */
  high: HighData;
  low: LowChunk[];
  origins: Record<string, IdOrigin>;
  /** `META:` sections taken out of the SLS files. */
  meta: MetaSections;
  diagnostics: Diagnostic[];
  /** True when any stage reported an error: low is then empty. */
  failed: boolean;
  /**
   * The host calls the templates made. One without an answer (`answered: false`) failed the
   * compile with BRINE_ERR_COMPILE_HOST_CALL; ask the host and compile again (compileAsking).
   */
  hostCalls: HostCallRecord[];
}

function renderContext(opts: CompileOptions): RenderContext {
  const ctx: RenderContext = { grains: opts.minion.grains, pillar: opts.pillar ?? {}, params: opts.params ?? {} };
  if (opts.salt) ctx.salt = opts.salt;
  if (opts.extra) ctx.extra = opts.extra;
  if (opts.hostAnswers) ctx.hostAnswers = opts.hostAnswers;
  return ctx;
}

export function compileTopFiles(opts: CompileOptions): { matches: Matches; diagnostics: Diagnostic[]; hostCalls: HostCallRecord[] } {
  const render = reusingRenders(opts, opts.render ?? renderSls);
  const topName = opts.stateTop ?? 'top.sls';
  const diagnostics: Diagnostic[] = [];
  const tops: Record<string, TopData> = {};
  const files: Record<string, string> = {};
  const positions: Record<string, PositionMap> = {};
  const hostCalls = new Map<string, HostCallRecord>();
  const envs = opts.tree.envs();
  for (const env of envs) {
    const text = opts.tree.read(env, topName);
    if (text === undefined) {
      tops[env] = {};
      continue;
    }
    const out = render({ tree: opts.tree, env, path: topName, text, context: renderContext(opts) });
    diagnostics.push(...out.diagnostics);
    if (out.hostCalls) addHostCalls(hostCalls, out.hostCalls);
    tops[env] = (out.high ?? {}) as TopData;
    files[env] = topName;
    positions[env] = out.positions;
  }
  const top = compileTop({
    tops,
    files,
    positions,
    envs,
    minion: { id: opts.minion.id, grains: opts.minion.grains, pillar: opts.pillar ?? {} },
    ...(opts.strategy ? { strategy: opts.strategy } : {}),
    ...(opts.defaultTop ? { defaultTop: opts.defaultTop } : {}),
    ...(opts.saltenv ? { saltenv: opts.saltenv } : {}),
    ...(opts.extMatches ? { extMatches: opts.extMatches } : {}),
    ...(opts.masterTopsFirst ? { masterTopsFirst: true } : {}),
    targetOptions: { nodegroups: opts.nodegroups ?? {} },
  });
  diagnostics.push(...top.diagnostics);
  const calls = [...hostCalls.values()];
  return { matches: top.value.matches, diagnostics: onlyHostCalls(diagnostics, calls), hostCalls: calls };
}

/**
 * With a host call unanswered, the templates ran on placeholders: every other finding may be
 * one of theirs. Only the calls are reported (the compile after the answers reports the rest).
 */
function onlyHostCalls(diagnostics: Diagnostic[], calls: HostCallRecord[]): Diagnostic[] {
  if (!calls.some((c) => !c.answered)) return diagnostics;
  return diagnostics.filter((d) => d.code === 'BRINE_ERR_COMPILE_HOST_CALL');
}

/** From matches to ordered low state; `raw` stops before extend/requisite_in/exclude (show_low_sls). */
export function compileMatches(opts: CompileOptions, matches: Matches, raw = false): Compiled {
  const diagnostics: Diagnostic[] = [];
  let meta: MetaSections = { SLS: {}, ID_DECS: {} };
  let hostCalls: HostCallRecord[] = [];
  const done = (rawHigh: HighData, high: HighData, low: LowChunk[], origins: Record<string, IdOrigin>): Compiled => ({
    matches,
    meta,
    rawHigh,
    high,
    low: hasErrors(diagnostics) ? [] : low,
    origins,
    diagnostics: dedupe(onlyHostCalls(diagnostics, hostCalls)),
    failed: hasErrors(diagnostics),
    hostCalls,
  });
  const render = reusingRenders(opts, opts.render ?? renderSls);
  const gathered = gatherHigh({ tree: opts.tree, matches, context: renderContext(opts), render });
  diagnostics.push(...gathered.diagnostics);
  const { high: rawHigh, origins } = gathered.value;
  meta = gathered.value.meta;
  hostCalls = gathered.value.hostCalls;
  // Later stages still run after a failed render so that every problem is reported at once;
  // what a missing file would cascade into (extends and requisites naming its IDs) is not.
  const renderFailed = hasErrors(diagnostics);
  const later = (ds: Diagnostic[]) =>
    renderFailed ? ds.filter((d) => d.code !== 'BRINE_ERR_COMPILE_EXTEND_MISSING' && d.code !== 'BRINE_ERR_COMPILE_REQUISITE_NOT_FOUND') : ds;

  const split = splitArgDicts(rawHigh, origins);
  diagnostics.push(...split.diagnostics);
  let high = split.value;
  // the IDs listed once, for every stage until one adds or removes some (only an exclude does;
  // arg_bind copies, and the raw high below is made in their order)
  let idList: readonly string[] | undefined = split.ids;
  if (!raw) {
    const rec = reconcile({ high: split.value, origins, ids: idList });
    diagnostics.push(...later(rec.diagnostics));
    idList = rec.ids;
    const bound = argBind(rec.value, origins, idList);
    diagnostics.push(...later(bound.diagnostics));
    high = bound.value;
  } else {
    high = Object.fromEntries(Object.entries(split.value).filter(([k]) => !k.startsWith('__'))) as HighData;
  }
  diagnostics.push(...later(verifyHigh(high, origins, opts.schema, idList).diagnostics));
  const low = orderChunks(compileLow(high, idList).value).value;
  if (!raw) diagnostics.push(...later(verifyLow(low, origins).diagnostics));
  return done(rawHigh, high, low, origins);
}

/** The whole highstate for one minion: top files, then everything. */
export function compileHighstate(opts: CompileOptions, raw = false): Compiled {
  const top = compileTopFiles(opts);
  if (hasErrors(top.diagnostics)) {
    return {
      matches: top.matches,
      rawHigh: {},
      high: {},
      low: [],
      origins: {},
      meta: { SLS: {}, ID_DECS: {} },
      diagnostics: top.diagnostics,
      failed: true,
      hostCalls: top.hostCalls,
    };
  }
  const compiled = compileMatches(opts, top.matches, raw);
  compiled.diagnostics.unshift(...top.diagnostics);
  if (top.hostCalls.length) {
    const all = new Map<string, HostCallRecord>();
    addHostCalls(all, top.hostCalls);
    addHostCalls(all, compiled.hostCalls);
    compiled.hostCalls = [...all.values()];
  }
  return compiled;
}

/** `state.sls a,b saltenv=env`: the matches come from the arguments instead of top files. */
export function compileSls(opts: CompileOptions, sls: string[], env = 'base', raw = false): Compiled {
  return compileMatches(opts, { [env]: sls }, raw);
}

/** The same finding reached by two stages is reported once. */
function dedupe(diagnostics: Diagnostic[]): Diagnostic[] {
  const seen = new Set<string>();
  return diagnostics.filter((d) => {
    const key = `${d.code}\0${d.id ?? ''}\0${d.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
