import {
  compileAsking,
  compileHighstate,
  compileSls,
  compileTopFiles,
  dirTree,
  minionOpts,
  renderSls,
  strictParams,
  type Compiled,
  type CompileOptions,
  type StateSchema,
} from '@brine/compiler';
import { hasErrors, unknownArgOf, type StateRegistry } from '@brine/core';
import { localHost } from './host-calls.js';
import { CompileTiering } from './jit-tiering.js';
// (the argument readers alone: a compile does not load the runtime)
import { slsNames } from '@brine/runtime/state-run-args';
import type { LocalOptions } from './options.js';

/** The compiler's view of the registry: used for warnings about unknown modules/functions. */
export function registrySchema(registry: StateRegistry): StateSchema {
  // asked once per state of a compile: the answers kept by module and function (a lookup makes an object)
  const known = new Map<string, Map<string, boolean>>();
  return {
    hasModule: (state) => registry.module(state) !== undefined,
    hasFunction: (state, fun) => {
      let funs = known.get(state);
      if (!funs) known.set(state, (funs = new Map()));
      let has = funs.get(fun);
      if (has === undefined) funs.set(fun, (has = registry.lookup(state, fun) !== undefined));
      return has;
    },
    unknownArg: (state, fun, key) => unknownArgOf(registry, state, fun, key),
  };
}

export function compileOptions(opts: LocalOptions, registry?: StateRegistry, tiering?: CompileTiering): CompileOptions {
  const kw = opts.call.kwargs;
  const inlinePillar = kw.pillar && typeof kw.pillar === 'object' && !Array.isArray(kw.pillar) ? (kw.pillar as Record<string, unknown>) : {};
  return {
    tree: dirTree(opts.roots),
    minion: { id: opts.id, grains: opts.grains },
    pillar: { ...opts.pillar, ...inlinePillar },
    params: strictParams(opts.params),
    render: localRender(opts, tiering),
    ...opts.top,
    ...(typeof kw.saltenv === 'string' ? { saltenv: kw.saltenv } : {}),
    ...(registry ? { schema: registrySchema(registry) } : {}),
  };
}

/** Templates see `opts` as salt-call --local's: this host's roots, the saltenv and test asked. */
function localRender(opts: LocalOptions, tiering?: CompileTiering): CompileOptions['render'] {
  const kw = opts.call.kwargs;
  const view = minionOpts({
    saltenv: typeof kw.saltenv === 'string' ? kw.saltenv : null,
    test: kw.test === true || kw.test === 'True' || kw.test === 'true',
    fileRoots: opts.roots,
    pillarRoots: opts.pillarRoots,
  });
  return (input) => {
    const out = renderSls({ ...input, context: { ...input.context, opts: { ...view, ...input.context.opts } } });
    tiering?.rendered(out.high);
    return out;
  };
}

/** SLS names from `state.sls a,b` / `state.show_sls a b` / `mods=a,b`. */
export function slsArgs(opts: LocalOptions): string[] {
  return slsNames(...opts.call.args, opts.call.kwargs.mods);
}

/** Like Salt, a pillar that failed to render fails every compile (its errors are the result). */
export function pillarFailure(opts: LocalOptions): Compiled | undefined {
  if (!hasErrors(opts.pillarDiagnostics)) return undefined;
  return {
    matches: {},
    rawHigh: {},
    high: {},
    low: [],
    origins: {},
    meta: { SLS: {}, ID_DECS: {} },
    diagnostics: opts.pillarDiagnostics,
    failed: true,
    hostCalls: [],
  };
}

/** Compiles on this host: the templates' host calls are answered here (localHost). */
export async function compileFor(
  opts: LocalOptions,
  mode: 'highstate' | 'sls',
  raw: boolean,
  registry?: StateRegistry,
  tiering = new CompileTiering(),
): Promise<Compiled> {
  const broken = pillarFailure(opts);
  if (broken) return broken;
  const copts = compileOptions(opts, registry, tiering);
  const env = typeof opts.call.kwargs.saltenv === 'string' ? opts.call.kwargs.saltenv : 'base';
  let result: Compiled;
  try {
    ({ result } = await compileAsking(
      (hostAnswers) => (mode === 'sls' ? compileSls({ ...copts, hostAnswers }, slsArgs(opts), env, raw) : compileHighstate({ ...copts, hostAnswers }, raw)),
      { ask: localHost(opts), minion: opts.id },
    ));
  } finally {
    tiering.done();
  }
  if (opts.pillarDiagnostics.length > 0) result.diagnostics.unshift(...opts.pillarDiagnostics);
  return result;
}

/** The top files' matches for this host (state.show_top). */
export async function topFor(opts: LocalOptions): Promise<ReturnType<typeof compileTopFiles>> {
  const copts = compileOptions(opts);
  const { result } = await compileAsking((hostAnswers) => compileTopFiles({ ...copts, hostAnswers }), { ask: localHost(opts), minion: opts.id });
  return result;
}
