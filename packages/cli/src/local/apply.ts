import { createCommandRunner, type LowChunk } from '@brine/core';
import { chunksForId, isTrue, noIdMatch, noStatesRunning, nothingMatched, runLowState, singleChunk } from '@brine/runtime';
import { dirFileClient } from '@brine/states/lazy';
import { cliErrors } from '../errors.js';
import { strictParams } from '@brine/compiler';
import { compileFor, slsArgs } from './compile.js';
import { localContext, localExec } from './exec.js';
import { failed, type LocalFunction, type LocalResult } from './functions.js';
import type { APPLY_FUNCTIONS } from './function-names.js';
import type { LocalOptions } from './options.js';
import type { LocalStates } from './registry.js';

/** Runs ordered low chunks on this host (their state modules loaded now) and shapes the result like salt-call's. */
async function run(opts: LocalOptions, states: LocalStates, low: LowChunk[]): Promise<Pick<LocalResult, 'value' | 'retcode'>> {
  const [{ exec, registry: functions }, registry] = await Promise.all([localExec(), states.forRun(low)]);
  const outcome = await runLowState(low, {
    exec: exec.execCaller(functions, await localContext(opts)),
    registry,
    test: isTrue(opts.call.kwargs.test),
    cmd: createCommandRunner(),
    files: dirFileClient(opts.roots),
    templateContext: { grains: opts.grains, pillar: opts.pillar, params: strictParams(opts.params), opts: { id: opts.id } },
    ...(isTrue(opts.call.kwargs.failhard) ? { failhard: true } : {}),
  });
  // Exit codes: 0 all good, 2 a state failed (the runtime's retcode), 1 a compile error.
  return { value: outcome.running, retcode: outcome.retcode };
}

async function applyCompiled(opts: LocalOptions, states: LocalStates, mode: 'highstate' | 'sls'): Promise<LocalResult> {
  const c = await compileFor(opts, mode, false, states.schema);
  if (c.failed) return failed(c.diagnostics, true);
  // Salt's exit code for it is 1, as for a tree that does not compile
  if (mode === 'highstate' && nothingMatched(c.matches)) return { value: noStatesRunning(), retcode: 1, diagnostics: c.diagnostics, isRun: true };
  return { ...(await run(opts, states, c.low)), diagnostics: c.diagnostics, isRun: true };
}

export const applyFunctions: Record<(typeof APPLY_FUNCTIONS)[number], LocalFunction> = {
  async 'state.apply'(opts, states) {
    return applyCompiled(opts, states, slsArgs(opts).length > 0 ? 'sls' : 'highstate');
  },
  async 'state.highstate'(opts, states) {
    return applyCompiled(opts, states, 'highstate');
  },
  async 'state.sls'(opts, states) {
    if (slsArgs(opts).length === 0) {
      throw cliErrors.make('BRINE_ERR_CLI_USAGE', { detail: 'state.sls needs an SLS name', usage: 'brine local state.sls <sls>[,<sls>...] [test=True]' });
    }
    return applyCompiled(opts, states, 'sls');
  },
  /** state.apply with test=True. */
  async 'state.test'(opts, states) {
    const dry = { ...opts, call: { ...opts.call, kwargs: { ...opts.call.kwargs, test: true } } };
    return applyCompiled(dry, states, slsArgs(dry).length > 0 ? 'sls' : 'highstate');
  },
  /** `state.sls_id ID SLS`: one ID of the SLS and the states it requires. */
  async 'state.sls_id'(opts, states) {
    const [first, ...rest] = opts.call.args;
    const id = first ?? opts.call.kwargs.id_;
    const sub = { ...opts, call: { ...opts.call, args: first === undefined ? [] : rest } };
    if (id === undefined || slsArgs(sub).length === 0) {
      throw cliErrors.make('BRINE_ERR_CLI_USAGE', {
        detail: 'state.sls_id needs an ID and an SLS name',
        usage: 'brine local state.sls_id <id> <sls>[,<sls>...]',
      });
    }
    const c = await compileFor(sub, 'sls', false, states.schema);
    if (c.failed) return failed(c.diagnostics, true);
    const low = chunksForId(c.low, String(id));
    if (low.length === 0) return { value: noIdMatch(String(id), slsArgs(sub), 'base'), retcode: 1, diagnostics: c.diagnostics };
    return { ...(await run(opts, states, low)), diagnostics: c.diagnostics, isRun: true };
  },
  /** `state.low '{"state": "pkg", "fun": "installed", "name": "vim"}'`: one raw low chunk. */
  async 'state.low'(opts, states) {
    const [raw] = opts.call.args;
    const low = (typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? raw : undefined) as Record<string, unknown> | undefined;
    if (!low || typeof low.state !== 'string' || typeof low.fun !== 'string' || low.name === undefined) {
      throw cliErrors.make('BRINE_ERR_CLI_USAGE', {
        detail: 'state.low needs a low chunk with state, fun and name',
        usage: `brine local state.low '{"state": "file", "fun": "managed", "name": "/tmp/x", "contents": "hi"}'`,
      });
    }
    const name = String(low.name);
    const chunk = { __id__: name, __sls__: 'state.low', __env__: 'base', order: 10000, ...low, name } as LowChunk;
    return { ...(await run(opts, states, [chunk])), diagnostics: [], isRun: true };
  },
  /** `state.single pkg.installed name=vim`: one state, no SLS. */
  async 'state.single'(opts, states) {
    const [fn] = opts.call.args;
    const { name, test: _test, ...args } = opts.call.kwargs;
    void _test;
    const chunk = typeof fn === 'string' && name !== undefined ? singleChunk(fn, name, args) : undefined;
    if (!chunk) {
      throw cliErrors.make('BRINE_ERR_CLI_USAGE', {
        detail: 'state.single needs <module.function> and name=...',
        usage: 'brine local state.single <module.function> name=<name> [key=value...]',
      });
    }
    return { ...(await run(opts, states, [chunk])), diagnostics: [], isRun: true };
  },
};
