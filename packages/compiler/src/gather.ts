import type { Diagnostic, HighData, Matches } from '@brine/core';
import type { HostCallRecord } from '@brine/jinja';
import { compilerErrors } from './errors.js';
import { globMatch, isGlob } from './glob.js';
import type { IdPositions, PositionMap, RenderContext, RenderInput, RenderOutput } from './render/types.js';
import { injectAutoOrder, standardizeFile } from './state-decls.js';
import { readSls, slsIndex, type StateTree } from './state-tree.js';
import { describe } from './top.js';

/**
 * The includes stage: renders every SLS the matches name, following includes (globs, relative
 * `.x`, `{env: sls}`), each file once; included states are loaded first so they get the lower
 * auto order numbers; IDs must be unique across files.
 */
export interface GatherInput {
  tree: StateTree;
  matches: Matches;
  context: RenderContext;
  render: (input: RenderInput) => RenderOutput;
}

/**
 * Where an ID was declared, for diagnostics of later stages. `states` and `args` are worked out
 * when first read (Origin): a structured-clone copy (the compile worker's answer) has neither.
 */
export interface IdOrigin {
  env: string;
  sls: string;
  file: string;
  line?: number;
  column?: number;
  states: PositionMap['ids'][string]['states'];
  args: PositionMap['ids'][string]['args'];
}

/**
 * `META:` sections (Idem's parameter documentation): the top-level one documents the file, one
 * inside an ID documents that state. They are documentation, not states: taken out of the high
 * data here and kept beside it.
 */
export interface MetaSections {
  SLS: Record<string, unknown>;
  ID_DECS: Record<string, unknown>;
}

export interface Gathered {
  high: HighData;
  meta: MetaSections;
  origins: Record<string, IdOrigin>;
  /** `env:sls` of every file rendered, in render order. */
  rendered: string[];
  /** The host calls the templates made, once each, in the order first made. */
  hostCalls: HostCallRecord[];
}

/** An IdOrigin whose state and argument positions are read from the render's when asked (only diagnostics ask). */
class Origin implements IdOrigin {
  readonly env: string;
  readonly sls: string;
  readonly file: string;
  readonly #at: IdPositions | undefined;
  constructor(env: string, sls: string, file: string, at: IdPositions | undefined) {
    this.env = env;
    this.sls = sls;
    this.file = file;
    this.#at = at;
  }
  // read from the render's positions when asked (only diagnostics ask): two fields less per ID
  get line(): number | undefined {
    return this.#at?.pos.line;
  }
  get column(): number | undefined {
    return this.#at?.pos.column;
  }
  get states(): IdOrigin['states'] {
    return this.#at?.states ?? {};
  }
  get args(): IdOrigin['args'] {
    return this.#at?.args ?? {};
  }
}

interface Ctx {
  input: GatherInput;
  mods: Set<string>;
  order: { next: number };
  origins: Record<string, IdOrigin>;
  /** The most recent declaration of an ID declared more than once (else see origins): where a duplicate is reported. */
  latest: Record<string, IdOrigin>;
  meta: MetaSections;
  diagnostics: Diagnostic[];
  index: Map<string, string[]>;
  hostCalls: Map<string, HostCallRecord>;
}

function slsList(ctx: Ctx, env: string): string[] {
  let list = ctx.index.get(env);
  if (!list) {
    list = [...slsIndex(ctx.input.tree, env).keys()].sort();
    ctx.index.set(env, list);
  }
  return list;
}

/** Salt's relative include: `.x` is a sibling, `..x` a sibling of the parent package. */
function resolveRelative(include: string, sls: string, isInit: boolean): string | undefined {
  const m = /^(\.+)(.*)$/.exec(include)!;
  const levels = m[1]!.length;
  const parts = sls.split('.');
  if (isInit) parts.push('init');
  if (levels > parts.length) return undefined;
  return [...parts.slice(0, parts.length - levels), ...(m[2] ? [m[2]] : [])].join('.');
}

function mergeInto(ctx: Ctx, into: HighData, from: HighData, env: string, sls: string): void {
  if (from.__extend__) (into.__extend__ ??= []).push(...from.__extend__);
  if (from.__exclude__) (into.__exclude__ ??= []).push(...from.__exclude__);
  const idList = Object.keys(from);
  for (let k = 0; k < idList.length; k++) {
    const id = idList[k]!;
    if (id === '__extend__' || id === '__exclude__') continue;
    const existing = into[id] as Record<string, unknown> | undefined;
    if (existing !== undefined) {
      const prevSls = `${existing.__env__}:${existing.__sls__}`;
      const body = from[id] as Record<string, unknown>;
      const newSls = `${body.__env__}:${body.__sls__}`;
      const origin = ctx.latest[id] ?? ctx.origins[id];
      ctx.diagnostics.push(
        compilerErrors.diag(
          'BRINE_ERR_COMPILE_DUPLICATE_ID',
          { id, first: prevSls, second: newSls },
          { file: origin?.file, line: origin?.line, column: origin?.column, sls, env, id },
        ),
      );
      continue;
    }
    into[id] = from[id];
  }
}

/** Adds a render's host calls to those of the compile (the first site of each call is kept). */
export function addHostCalls(into: Map<string, HostCallRecord>, calls: HostCallRecord[]): void {
  for (const c of calls) {
    const had = into.get(c.key);
    if (!had || (had.speculative && !c.speculative)) into.set(c.key, c);
  }
}

function renderState(ctx: Ctx, sls: string, env: string, includedFrom?: { sls: string; file: string }, speculative = false): HighData | undefined {
  const key = `${env}:${sls}`;
  if (ctx.mods.has(key)) return undefined;
  ctx.mods.add(key);
  const { tree } = ctx.input;
  const file = readSls(tree, env, sls);
  if (file === undefined) {
    ctx.diagnostics.push(
      compilerErrors.diag(
        'BRINE_ERR_COMPILE_SLS_NOT_FOUND',
        { sls, env, from: includedFrom ? ` (included from SLS '${includedFrom.sls}')` : '' },
        includedFrom ? { file: includedFrom.file, sls: includedFrom.sls, env } : { sls, env },
      ),
    );
    return undefined;
  }
  const { path, text } = file;
  const out = ctx.input.render({ tree, env, sls, path, text, context: ctx.input.context, ...(speculative ? { speculative } : {}) });
  ctx.diagnostics.push(...out.diagnostics);
  // a placeholder answered a call: what this file includes may be the placeholder's doing
  const guessed = speculative || (out.hostCalls?.some((c) => !c.answered) ?? false);
  if (out.hostCalls) addHostCalls(ctx.hostCalls, out.hostCalls);
  // a guess (a render with placeholders) is followed only to collect the host calls it leads to:
  // its diagnostics have already failed the compile
  const state = out.high ?? out.guess;
  if (!state) return undefined;

  const includeRaw = state.include;
  delete state.include;
  const included: HighData = {};
  if (includeRaw !== undefined && includeRaw !== null) {
    const list = Array.isArray(includeRaw) ? includeRaw : typeof includeRaw === 'string' ? [includeRaw] : undefined;
    if (!list) {
      ctx.diagnostics.push(compilerErrors.diag('BRINE_ERR_COMPILE_BAD_INCLUDE', { sls, got: describe(includeRaw) }, { file: path, sls, env }));
    }
    for (const item of list ?? []) {
      let incEnv = env;
      let ref: unknown = item;
      if (item && typeof item === 'object' && !Array.isArray(item) && Object.keys(item).length === 1) {
        [incEnv, ref] = Object.entries(item)[0]!;
      }
      if (typeof ref !== 'string') {
        ctx.diagnostics.push(compilerErrors.diag('BRINE_ERR_COMPILE_BAD_INCLUDE', { sls, got: JSON.stringify(item) }, { file: path, sls, env }));
        continue;
      }
      let target = ref;
      if (target.startsWith('.')) {
        const resolved = resolveRelative(target, sls, path.endsWith('/init.sls'));
        if (resolved === undefined) {
          ctx.diagnostics.push(compilerErrors.diag('BRINE_ERR_COMPILE_INCLUDE_BEYOND_TOP', { include: ref, sls }, { file: path, sls, env }));
          continue;
        }
        target = resolved;
      }
      const targets = isGlob(target) ? slsList(ctx, incEnv).filter((s) => globMatch(s, target)) : [target];
      for (const t of targets) {
        const nstate = renderState(ctx, t, incEnv, { sls, file: path }, guessed);
        if (!nstate) continue;
        for (const id of Object.keys(nstate)) {
          if (id.startsWith('__')) continue;
          const decl = nstate[id] as Record<string, unknown>;
          ((decl.__sls_included_from__ as string[] | undefined) ??= []).push(sls);
        }
        mergeInto(ctx, included, nstate, env, sls);
      }
    }
  }

  if ('META' in state) {
    ctx.meta.SLS[sls] = state.META;
    delete state.META;
  }
  const metaIds = Object.keys(state);
  for (let k = 0; k < metaIds.length; k++) {
    const id = metaIds[k]!;
    const decl = state[id];
    if (id.startsWith('__') || decl === null || typeof decl !== 'object' || Array.isArray(decl) || !('META' in decl)) continue;
    ctx.meta.ID_DECS[`${sls}.${id}`] = (decl as Record<string, unknown>).META;
    delete (decl as Record<string, unknown>).META;
  }
  standardizeFile(state, sls, env, out.positions, ctx.diagnostics);
  const originIds = Object.keys(state);
  for (let k = 0; k < originIds.length; k++) {
    const id = originIds[k]!;
    if (id.startsWith('__')) continue;
    const origin = new Origin(env, sls, path, out.positions.ids[id]);
    // the latest of a duplicate ID only: for the others it is the first (one table write, not two)
    if (ctx.origins[id] === undefined) ctx.origins[id] = origin;
    else ctx.latest[id] = origin;
  }
  // The file's own IDs come first in its dict, the included ones after, like Salt's update().
  mergeInto(ctx, state, included, env, sls);
  injectAutoOrder(state, ctx.order, out.keyOrder);
  return state;
}

/**
 * The position of `<state>` or `<state>/<arg>` in an ID's origin. Positions are keyed as written
 * (`file.managed/require`) while stages speak of the module (`file/require`): try both.
 */
export function positionOf(origin: IdOrigin | undefined, path: string): { line: number; column: number } | undefined {
  if (!origin) return undefined;
  const exact = path.includes('/') ? origin.args[path] : origin.states[path];
  if (exact) return exact;
  const [state, ...rest] = path.split('/');
  const table = rest.length > 0 ? origin.args : origin.states;
  for (const key of Object.keys(table)) {
    const [written, ...wrest] = key.split('/');
    if (written!.startsWith(`${state}.`) && wrest.join('/') === rest.join('/')) return table[key];
  }
  return undefined;
}

/**
 * Where a later stage reports a problem of an ID: its argument (or, with `stateFallback`, its
 * state declaration) when known, else the ID itself.
 */
export function locate(origins: Record<string, IdOrigin> | undefined, id: string, path?: string, stateFallback = false) {
  const o = origins?.[id];
  const p = path ? (positionOf(o, path) ?? (stateFallback ? positionOf(o, path.split('/')[0]!) : undefined)) : undefined;
  return { file: o?.file, line: p?.line ?? o?.line, column: p?.column ?? o?.column, sls: o?.sls, env: o?.env, id };
}

export function gatherHigh(input: GatherInput): { value: Gathered; diagnostics: Diagnostic[] } {
  const ctx: Ctx = {
    input,
    mods: new Set(),
    order: { next: 10000 },
    origins: {},
    latest: {},
    meta: { SLS: {}, ID_DECS: {} },
    diagnostics: [],
    index: new Map(),
    hostCalls: new Map(),
  };
  const high: HighData = {};
  for (const [env, list] of Object.entries(input.matches)) {
    for (const match of list) {
      const targets = isGlob(match) ? slsList(ctx, env).filter((s) => globMatch(s, match)) : [match];
      if (targets.length === 0) {
        ctx.diagnostics.push(compilerErrors.diag('BRINE_ERR_COMPILE_SLS_NOT_FOUND', { sls: match, env, from: '' }, { sls: match, env }));
      }
      for (const sls of targets) {
        const state = renderState(ctx, sls, env);
        if (state) mergeInto(ctx, high, state, env, sls);
      }
    }
  }
  return {
    value: { high, meta: ctx.meta, origins: ctx.origins, rendered: [...ctx.mods], hostCalls: [...ctx.hostCalls.values()] },
    diagnostics: ctx.diagnostics,
  };
}
