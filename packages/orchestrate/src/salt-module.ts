import { isTrue, slsNames } from '@brine/runtime';
import type { StateContext, StateModule, StateReturn } from '@brine/core';
import { boundArguments, stepState, unresolvedReferences } from './bind.js';
import type { JobCall, JobOutcome, OrchestrationJobs } from './jobs.js';
import { eachMinion, failMinions, stateRunChanged, stateRunSucceeded } from './minion-returns.js';
import { waitForEvent } from './wait-for-event.js';

/**
 * Salt's orchestrate states (`salt/states/saltmod.py`), run on the master: each publishes through
 * the injected job interface and judges the minions' returns the way Salt does (comments,
 * changes, results). Every step that reached minions also answers a `new_state` (bind.ts) for
 * the argument binding of later steps.
 */
export interface SaltModuleOptions {
  jobs: OrchestrationJobs;
  /** The orchestration's saltenv, passed to `state.sls` when a step names none. */
  saltenv?: string;
}

type Args = Record<string, unknown>;

function tagOf(ctx: StateContext): string {
  const l = ctx.low;
  return `${l.state}_|-${l.__id__}_|-${l.name}_|-${l.fun}`;
}

/** Stamps the child jid, the step's binding state and the values its references resolved to. */
function finish(ret: StateReturn, ctx: StateContext, outcome: JobOutcome | undefined, warnings: string[]): StateReturn {
  if (warnings.length > 0) ret.warnings = warnings;
  if (outcome?.jid) ret.__jid__ = outcome.jid;
  if (outcome) ret.new_state = stepState(outcome.jid, outcome.returns, ret.changes);
  const bound = boundArguments(ctx);
  if (Object.keys(bound).length > 0) ret.bound_args = bound;
  return ret;
}

function targetOf(a: Args): { tgt: string | string[]; tgt_type: string } {
  const tgt = Array.isArray(a.tgt) ? a.tgt.map(String) : String(a.tgt ?? '');
  return { tgt, tgt_type: typeof a.tgt_type === 'string' && a.tgt_type ? a.tgt_type : 'glob' };
}

function jobOptions(a: Args): Pick<JobCall, 'batch' | 'timeout'> {
  const out: Pick<JobCall, 'batch' | 'timeout'> = {};
  if (a.batch !== undefined && a.batch !== null) out.batch = String(a.batch);
  if (a.timeout !== undefined && a.timeout !== null && Number.isFinite(Number(a.timeout))) out.timeout = Number(a.timeout);
  return out;
}

/** Runs the job; a publish that failed (bad target, store down) fails the step with its message. */
async function publish(o: SaltModuleOptions, call: JobCall): Promise<JobOutcome | { error: string }> {
  try {
    return await o.jobs.run(call);
  } catch (e) {
    const code = (e as { code?: string }).code;
    // a target that matches nothing is an empty return, as Salt's saltutil.cmd answers it
    if (code === 'BRINE_ERR_MASTER_NO_MINIONS') return { jid: null, returns: {}, missing: [] };
    return { error: (e as Error).message };
  }
}

async function saltState(o: SaltModuleOptions, a: Args, ctx: StateContext): Promise<StateReturn> {
  const ret: StateReturn = { name: String(a.name), changes: {}, comment: '', result: true };
  const warnings: string[] = [];
  const allowFail = Number(a.allow_fail ?? 0);
  if (!Number.isInteger(allowFail)) {
    return { ...ret, result: false, comment: "Passed invalid value for 'allow_fail', must be an int" };
  }
  let fun: string;
  const arg: unknown[] = [];
  if (isTrue(a.highstate)) fun = 'state.highstate';
  else if (a.top) {
    fun = 'state.top';
    arg.push(String(a.top));
  } else if (a.sls) {
    fun = 'state.sls';
    arg.push(slsNames(a.sls).join(','));
  } else return { ...ret, result: false, comment: 'No highstate or sls specified, no execution made' };
  const concurrent = a.concurrent ?? false;
  if (typeof concurrent !== 'boolean') return { ...ret, result: false, comment: "Must pass in boolean for value of 'concurrent'" };
  // test, saltenv and queue are the state system's own arguments: the chunk has them, not `a`
  const low = ctx.low;
  const test = low.test !== undefined && low.test !== null ? isTrue(low.test) : ctx.test;
  const kwarg: Args = {};
  if (test) kwarg.test = true;
  if (a.pillar) kwarg.pillar = a.pillar;
  const saltenv = typeof low.saltenv === 'string' ? low.saltenv : o.saltenv;
  if (saltenv !== undefined) kwarg.saltenv = saltenv;
  if (isTrue(low.queue)) kwarg.queue = true;
  const fails = failMinions(a.fail_minions, warnings);
  const target = targetOf(a);
  const pending = ctx.test ? unresolvedReferences(ctx) : [];
  if (pending.length > 0) {
    // a test run of a step fed by steps that only ran in test mode: there is nothing to hand the minions yet
    const comment = `${fun} would run on target ${String(a.tgt)} with values bound at run time: ${pending.join(', ')}`;
    return finish({ ...ret, result: null, comment }, ctx, undefined, warnings);
  }
  const got = await publish(o, { ...target, fun, arg, kwarg, ...jobOptions(a), step: tagOf(ctx) });
  if ('error' in got) return finish({ ...ret, result: false, comment: got.error }, ctx, undefined, warnings);
  const minions = eachMinion(got, target);
  // Salt 3007 expects minions unless told otherwise
  if (minions.length === 0 && (a.expect_minions === undefined || isTrue(a.expect_minions))) {
    return finish({ ...ret, result: false, comment: 'No minions returned' }, ctx, got, warnings);
  }
  const changes: Args = {};
  const fail: string[] = [];
  const noChange: string[] = [];
  for (const m of minions) {
    if (!m.returned || !stateRunSucceeded(m.ret)) {
      if (!fails.has(m.minion)) fail.push(m.minion);
      changes[m.minion] = m.ret;
    } else if (stateRunChanged(m.ret)) changes[m.minion] = m.ret;
    else noChange.push(m.minion);
  }
  if (Object.keys(changes).length > 0) ret.changes = { out: 'highstate', ret: changes };
  if (fail.length > allowFail) {
    ret.result = false;
    ret.comment = `Run failed on minions: ${fail.join(', ')}`;
  } else {
    ret.comment = 'States ran successfully.';
    if (Object.keys(changes).length > 0) ret.comment += ` Updating ${Object.keys(changes).join(', ')}.`;
    if (noChange.length > 0) ret.comment += ` No changes made to ${noChange.join(', ')}.`;
  }
  if ((test || ctx.test) && Object.keys(ret.changes).length > 0 && ret.result === true) ret.result = null;
  return finish(ret, ctx, got, warnings);
}

async function saltFunction(o: SaltModuleOptions, a: Args, ctx: StateContext): Promise<StateReturn> {
  const name = String(a.name);
  const ret: StateReturn = { name, changes: {}, comment: '', result: true };
  const warnings: string[] = [];
  let arg: unknown[] = [];
  if (typeof a.arg === 'string') {
    warnings.push("Please specify 'arg' as a list of arguments.");
    arg = a.arg.split(/\s+/).filter(Boolean);
  } else if (Array.isArray(a.arg)) arg = a.arg;
  const kwarg = a.kwarg !== null && typeof a.kwarg === 'object' && !Array.isArray(a.kwarg) ? (a.kwarg as Args) : {};
  if (ctx.test) return finish({ ...ret, result: null, comment: `Function ${name} would be executed on target ${String(a.tgt)}` }, ctx, undefined, warnings);
  const fails = failMinions(a.fail_minions, warnings);
  const target = targetOf(a);
  const got = await publish(o, { ...target, fun: name, arg, kwarg, ...jobOptions(a), step: tagOf(ctx) });
  if ('error' in got) return finish({ ...ret, result: false, comment: got.error }, ctx, undefined, warnings);
  const minions = eachMinion(got, target);
  if (!minions.some((m) => m.returned)) return finish({ ...ret, result: false, comment: 'No minions responded' }, ctx, got, warnings);
  const changes: Args = {};
  const fail: string[] = [];
  for (const m of minions) {
    const failed = m.retcode !== 0 || !m.returned || m.ret === false;
    if (failed && !fails.has(m.minion)) fail.push(m.minion);
    if (m.retcode !== 0) ret.result = false;
    changes[m.minion] = m.ret;
  }
  ret.changes = { ret: changes };
  if (fail.length > 0) {
    ret.result = false;
    ret.comment = `Running function ${name} failed on minions: ${fail.join(', ')}`;
  } else ret.comment = 'Function ran successfully.';
  ret.comment += ` Function ${name} ran on ${Object.keys(changes).join(', ')}.`;
  return finish(ret, ctx, got, warnings);
}

async function saltRunner(o: SaltModuleOptions, a: Args, ctx: StateContext): Promise<StateReturn> {
  const name = String(a.name);
  if (ctx.test) return { name, result: null, changes: {}, comment: `Runner function '${name}' would be executed.` };
  if (!o.jobs.runner) return { name, result: false, changes: {}, comment: `Runner function '${name}' is not available.` };
  const kwarg: Args = {};
  for (const [k, v] of Object.entries(a)) if (k !== 'name') kwarg[k] = v;
  const arg = Array.isArray(kwarg.arg) ? (kwarg.arg as unknown[]) : [];
  delete kwarg.arg;
  let out;
  try {
    out = await o.jobs.runner({ fun: name, arg, kwarg });
  } catch (e) {
    return { name, result: false, changes: {}, comment: (e as Error).message };
  }
  const errored = out.ret !== null && typeof out.ret === 'object' && 'Error' in out.ret;
  const success = out.success && !errored;
  const ret: StateReturn = { name, changes: { return: out.ret }, result: success, comment: `Runner function '${name}' ${success ? 'executed' : 'failed'}.` };
  ret.__jid__ = out.jid;
  return finish(ret, ctx, undefined, []);
}

/** The `salt` state module of orchestrations. */
export function saltModule(o: SaltModuleOptions): StateModule {
  return {
    name: 'salt',
    available: () => ({ available: true }),
    functions: {
      state: { args: { tgt: { type: ['string', 'list'], required: true } }, extraArgs: true, run: (a, ctx) => saltState(o, a, ctx) },
      function: { args: { tgt: { type: ['string', 'list'], required: true } }, extraArgs: true, run: (a, ctx) => saltFunction(o, a, ctx) },
      wait_for_event: { args: { id_list: { type: 'list', required: true } }, extraArgs: true, run: (a, ctx) => waitForEvent(o.jobs, a, ctx) },
      runner: { args: {}, extraArgs: true, run: (a, ctx) => saltRunner(o, a, ctx) },
    },
  };
}
