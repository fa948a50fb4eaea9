import type { LowChunk, RunningDict } from '@brine/core';
import { chunksForId, isTrue, noIdMatch, noStatesRunning, nothingMatched, runLowState, singleChunk, slsNames } from '@brine/runtime';
import { execCaller, type ExecResult, type Param } from '@brine/exec';
import type { MinionExecContext as ExecContext, MinionFunction, StateHost } from './exec-function.js';
import { minionErrors } from './errors.js';
import { stateRunningMessage } from './state-running.js';

/** What the master answers to state.compile (see StateService on the master). */
export interface CompileReply {
  matches: Record<string, string[]>;
  high: Record<string, unknown>;
  low: LowChunk[];
  errors: string[];
  failed: boolean;
  pillar: Record<string, unknown>;
}

function host(ctx: ExecContext): StateHost {
  if (!ctx.state) throw minionErrors.make('BRINE_ERR_MINION_FUNCTION_FAILED', { fun: 'state', detail: 'no master channel' });
  return ctx.state;
}

const saltenv: Param = { name: 'saltenv', type: 'string' };
const pillarArg: Param = { name: 'pillar', type: 'dict' };
// template params (`brine run ... --params FILE params='{...}'`): the CLI merges them
const paramsArg: Param = { name: 'params', type: 'dict' };
/** The arguments of the state.show_* functions after mods. */
const showParams: Param[] = [saltenv, pillarArg, paramsArg];

const common: Param[] = [{ name: 'test', type: 'any' }, saltenv, pillarArg, { name: 'failhard', type: 'any' }, { name: 'queue', type: 'any' }, paramsArg];

async function compile(ctx: ExecContext, mode: 'top' | 'highstate' | 'sls', a: Record<string, unknown>, raw = false): Promise<CompileReply> {
  const args: Record<string, unknown> = { mode, jid: ctx.jid };
  if (mode === 'sls') args.sls = slsNames(a.mods);
  if (typeof a.saltenv === 'string') args.saltenv = a.saltenv;
  if (a.pillar) args.pillar = a.pillar;
  if (a.params) args.params = a.params;
  // templates read it as opts.test
  if (isTrue(a.test)) args.test = true;
  if (raw) args.raw = true;
  return (await host(ctx).request('state.compile', args)) as CompileReply;
}

/** A compile failure answers like Salt: the list of errors, retcode 1. */
function failed(c: CompileReply): ExecResult {
  return { return: c.errors, retcode: 1 };
}

/** Runs compiled chunks with the runtime, streaming each result; Salt's retcode 2 on failure. */
async function runChunks(ctx: ExecContext, low: LowChunk[], a: Record<string, unknown>, pillar: Record<string, unknown>): Promise<ExecResult> {
  const h = host(ctx);
  // as Salt's autoload_dynamic_modules: the tree's custom modules are synced before a run
  const { registry } = await h.syncStates(typeof a.saltenv === 'string' ? a.saltenv : 'base');
  const outcome = await runLowState(low, {
    registry,
    exec: execCaller(ctx.registry, ctx),
    test: isTrue(a.test),
    cmd: ctx.cmd,
    files: h.files,
    templateContext: { grains: ctx.grains, pillar, params: (a.params as Record<string, unknown>) ?? {}, opts: { id: h.id } },
    onResult: (tag, result) => h.emit(tag, result),
    signal: ctx.signal,
    ...(isTrue(a.failhard) ? { failhard: true } : {}),
  });
  return { return: outcome.running as RunningDict, retcode: outcome.retcode === 0 ? 0 : 2 };
}

async function apply(ctx: ExecContext, a: Record<string, unknown>, mode: 'highstate' | 'sls'): Promise<ExecResult> {
  const release = host(ctx).claim();
  try {
    const c = await compile(ctx, mode, a);
    if (c.failed) return failed(c);
    if (mode === 'highstate' && nothingMatched(c.matches)) return { return: noStatesRunning(), retcode: 1 };
    return await runChunks(ctx, c.low, a, c.pillar);
  } finally {
    release();
  }
}

const mods: Param = { name: 'mods', type: ['string', 'list'] };

/** Salt's state.sls_id: the SLS compiled, then one ID and what it requires run. */
async function slsId(ctx: ExecContext, a: Record<string, unknown>): Promise<ExecResult> {
  const release = host(ctx).claim();
  try {
    const c = await compile(ctx, 'sls', a);
    if (c.failed) return failed(c);
    const id = String(a.id_);
    const low = chunksForId(c.low, id);
    const env = typeof a.saltenv === 'string' ? a.saltenv : 'base';
    // a SaltInvocationError on a Salt minion: its message, retcode 1
    if (low.length === 0) return { return: `ERROR executing 'state.sls_id': ${noIdMatch(id, a.mods, env)}`, retcode: 1 };
    return await runChunks(ctx, low, a, c.pillar);
  } finally {
    release();
  }
}

/** The state.* functions about state runs rather than running states. */
const STATE_QUERIES: MinionFunction[] = [
  {
    name: 'state.sls_id',
    doc: 'Runs one ID of the SLS named (and the states it requires): state.sls_id my_id my_sls.',
    params: [{ name: 'id_', type: 'string', required: true }, { ...mods, required: true }, ...common],
    run: (a, ctx) => slsId(ctx, a),
  },
  {
    name: 'state.id_exists',
    doc: 'True when every ID named (a list or comma-separated) is in the SLS named.',
    params: [{ name: 'ids', type: ['string', 'list'], required: true }, { ...mods, required: true }, ...common],
    run: async (a, ctx) => {
      const c = await compile(ctx, 'sls', a, true);
      if (c.failed) return failed(c);
      const have = new Set(c.low.map((l) => l.__id__));
      const ids = Array.isArray(a.ids) ? a.ids.map(String) : String(a.ids).split(',');
      return { return: ids.every((i) => have.has(i.trim())) };
    },
  },
  {
    name: 'state.running',
    doc: 'The state runs in progress on this minion, in the words of the state lock.',
    params: [{ name: 'concurrent', type: 'any' }],
    run: (_a, ctx) => ({
      return: ctx
        .running()
        .filter((j) => j.fun.startsWith('state.') && j.jid !== ctx.jid)
        .map((j) => stateRunningMessage(j.fun, j.jid, new Date(j.started))),
    }),
  },
];

/** The state functions a minion runs for the master (state.apply and friends). */
export const STATE_FUNCTIONS: MinionFunction[] = [
  {
    name: 'state.apply',
    doc: 'Applies the highstate, or the SLS named (state.apply web,db), compiled by the master. test=True only reports.',
    params: [mods, ...common],
    run: (a, ctx) => apply(ctx, a, slsNames(a.mods).length > 0 ? 'sls' : 'highstate'),
  },
  {
    name: 'state.test',
    doc: 'state.apply with test=True: what would change.',
    params: [mods, ...common],
    run: (a, ctx) => apply(ctx, { ...a, test: true }, slsNames(a.mods).length > 0 ? 'sls' : 'highstate'),
  },
  ...STATE_QUERIES,
  {
    name: 'state.highstate',
    doc: 'Applies every SLS the top files and master_tops give this minion.',
    params: common,
    run: (a, ctx) => apply(ctx, a, 'highstate'),
  },
  {
    name: 'state.sls',
    doc: 'Applies the SLS named, without the top file.',
    params: [{ ...mods, required: true }, ...common],
    run: (a, ctx) => apply(ctx, a, 'sls'),
  },
  {
    name: 'state.single',
    doc: 'Runs one state function: state.single pkg.installed name=vim.',
    params: [{ name: 'fun', type: 'string', required: true }, { name: 'name', type: 'any', required: true }, ...common],
    extraKwargs: true,
    run: async (a, ctx) => {
      const chunk = singleChunk(String(a.fun), a.name, (a.kwargs as Record<string, unknown>) ?? {}, typeof a.saltenv === 'string' ? a.saltenv : 'base');
      if (!chunk) throw minionErrors.make('BRINE_ERR_MINION_BAD_ARGS', { fun: 'state.single', detail: `'${String(a.fun)}' is not module.function` });
      const release = host(ctx).claim();
      try {
        const p = (await host(ctx).request('pillar.items', {})) as { pillar: Record<string, unknown> };
        const pillar = { ...p.pillar, ...((a.pillar as Record<string, unknown>) ?? {}) };
        return await runChunks(ctx, [chunk], a, pillar);
      } finally {
        release();
      }
    },
  },
  {
    name: 'state.show_top',
    doc: 'The SLS the top files and master_tops give this minion, by environment.',
    params: [saltenv, paramsArg],
    run: async (a, ctx) => {
      const c = await compile(ctx, 'top', a);
      return c.failed ? failed(c) : { return: c.matches };
    },
  },
  {
    name: 'state.show_highstate',
    doc: 'The high data of this minion as the master compiles it.',
    params: showParams,
    run: async (a, ctx) => {
      const c = await compile(ctx, 'highstate', a);
      return c.failed ? failed(c) : { return: c.high };
    },
  },
  {
    name: 'state.show_lowstate',
    doc: 'The ordered low chunks of this minion.',
    params: showParams,
    run: async (a, ctx) => {
      const c = await compile(ctx, 'highstate', a);
      return c.failed ? failed(c) : { return: c.low };
    },
  },
  {
    name: 'state.show_sls',
    doc: 'The high data of the SLS named.',
    params: [{ ...mods, required: true }, ...showParams],
    run: async (a, ctx) => {
      const c = await compile(ctx, 'sls', a);
      return c.failed ? failed(c) : { return: c.high };
    },
  },
  {
    name: 'state.show_low_sls',
    doc: 'The low chunks of the SLS named, before extend and requisite_in.',
    params: [{ ...mods, required: true }, ...showParams],
    run: async (a, ctx) => {
      const c = await compile(ctx, 'sls', a, true);
      return c.failed ? failed(c) : { return: c.low };
    },
  },
  {
    name: 'saltutil.sync_states',
    doc: "Syncs the custom state modules of the tree's _states/ folder to this minion; returns those that changed.",
    params: [saltenv, { name: 'refresh', type: 'any' }],
    run: async (a, ctx) => {
      const r = await host(ctx).syncStates(typeof a.saltenv === 'string' ? a.saltenv : 'base');
      return { return: r.changed };
    },
  },
];
