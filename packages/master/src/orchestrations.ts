import { hostname } from 'node:os';
import type { Logger, StateResult } from '@brine/core';
import { runOrchestration, type JobCall, type JobOutcome, type OrchestrationJobs, type RunnerCall } from '@brine/orchestrate';
import { testModule } from '@brine/states';
import type { MasterConfig } from './config.js';
import { masterErrors } from './errors.js';
import type { EventBus } from './event-bus.js';
import type { JobManager } from './jobs.js';
import type { RunnerOutcome, RunnerRequest, RunRunner } from './runners.js';
import type { StateService } from './state-service.js';
import type { StoreBackend } from './store-backend.js';
import { normalizeResult } from './state-results.js';

/**
 * `state.orchestrate` on the master. The orchestration is a job of its own (the master's minion
 * id `<master id>_master`, Salt's name, as its only expected minion); its SLS compiles on a
 * compile worker like any minion's (the master's pillar for that id, `pillar=` on top); each
 * step's jobs are ordinary jobs whose parent_jid is the orchestration's; each step's result is
 * stored and told on the bus as it lands, as a minion's state results are.
 */
export interface OrchestrationDeps {
  config: MasterConfig;
  jobs: JobManager;
  events: EventBus;
  states: StateService;
  store: StoreBackend;
  log: Logger;
}

/** How long a step waits for its minions when it names no `timeout` (a highstate may take long). */
const STEP_TIMEOUT_SECONDS = 3600;

/** The orchestration's own minion id: Salt's `<master id>_master`. */
export function orchestrationMinion(config: MasterConfig): string {
  return `${config.cluster_id ?? hostname()}_master`;
}

export interface StartedRunner {
  jid: string;
  done: Promise<RunnerOutcome>;
}

/** The jobs a step publishes: children of the orchestration's job. */
function stepJobs(d: OrchestrationDeps, parent: string, user: string, runner: RunRunner): OrchestrationJobs {
  return {
    async run(call: JobCall): Promise<JobOutcome> {
      const pub = await d.jobs.publish({
        tgt: call.tgt,
        tgt_type: call.tgt_type as never,
        fun: call.fun,
        arg: call.arg,
        kwarg: call.kwarg,
        ...(call.batch ? { batch: call.batch } : {}),
        ...(call.timeout !== undefined ? { timeout: call.timeout } : {}),
        user,
        parent_jid: parent,
      });
      const report = await d.jobs.wait(pub.jid, call.batch ? 86400 : (call.timeout ?? STEP_TIMEOUT_SECONDS));
      const returns: JobOutcome['returns'] = {};
      for (const [m, r] of Object.entries(report.returns)) returns[m] = { ret: r.return, retcode: r.retcode, success: r.success };
      return { jid: pub.jid, returns, missing: report.missing.map((m) => m.minion) };
    },
    subscribe: (glob, fn) => d.events.subscribe(glob, (ev) => fn(ev.tag, ev.data)),
    runner: async (call: RunnerCall) => runner({ ...call, user }),
  };
}

/** Stores a step's result and tells the bus (the CLI and the console follow it live). */
function recordStep(d: OrchestrationDeps, jid: string, self: string, tag: string, res: StateResult): void {
  const run_num = res.__run_num__;
  d.store.insertStateResults(jid, self, [{ run_num, tag, ret: res }]).then(
    () => {
      const { result, changed, duration } = normalizeResult(res);
      const child = typeof res.__jid__ === 'string' ? { child_jid: res.__jid__ } : {};
      d.events.fire(`brine/job/${jid}/prog/${self}`, {
        jid,
        id: self,
        fun: 'state.orchestrate',
        results: [{ run_num, tag, result, changed, duration, ...child }],
      });
    },
    (err: unknown) => d.log.error({ jid, err: (err as Error).message }, 'orchestration step not stored'),
  );
}

function orchArgs(req: RunnerRequest): { sls: string; saltenv?: string; pillar?: Record<string, unknown>; test: boolean } {
  const sls = req.arg[0] ?? req.kwarg.mods;
  if (typeof sls !== 'string' || sls === '') throw masterErrors.make('BRINE_ERR_MASTER_BAD_REQUEST', { detail: 'state.orchestrate needs the SLS to run' });
  const pillar = req.kwarg.pillar;
  if (pillar !== undefined && (pillar === null || typeof pillar !== 'object' || Array.isArray(pillar))) {
    throw masterErrors.make('BRINE_ERR_MASTER_BAD_REQUEST', { detail: 'pillar= must be a dict' });
  }
  const test = req.kwarg.test === true || req.kwarg.test === 'true' || req.kwarg.test === 'True';
  return {
    sls,
    test,
    ...(typeof req.kwarg.saltenv === 'string' ? { saltenv: req.kwarg.saltenv } : {}),
    ...(pillar ? { pillar: pillar as Record<string, unknown> } : {}),
  };
}

/**
 * A step's result as stored: without the `new_state` argument binding read during the run (each
 * minion's whole return a second time); what the step was given stays (`bound_args`).
 */
function stored(res: StateResult): StateResult {
  const { new_state: _n, old_state: _o, ...rest } = res;
  return rest as StateResult;
}

/** Starts an orchestration: its job is stored before this resolves; `done` settles when it ends. */
export async function startOrchestration(d: OrchestrationDeps, req: RunnerRequest, runner: RunRunner): Promise<StartedRunner> {
  const a = orchArgs(req);
  const self = orchestrationMinion(d.config);
  const jid = await d.jobs.recordRunner({ fun: req.fun, arg: req.arg, kwarg: req.kwarg, user: req.user }, self);
  const started = new Date().toISOString();
  const finish = async (success: boolean, ret: unknown): Promise<RunnerOutcome> => {
    await d.jobs.finishRunner(jid, self, { success, retcode: success ? 0 : 1, return: ret, started });
    // the runner's return as salt-run gives it
    return { jid, success, ret: { data: { [self]: ret }, outputter: 'highstate', retcode: success ? 0 : 1 } };
  };
  const done = (async () => {
    try {
      const compiled = await d.states.compile(
        self,
        { id: self },
        { mode: 'sls', sls: [a.sls], jid, ...(a.saltenv ? { saltenv: a.saltenv } : {}), ...(a.pillar ? { pillar: a.pillar } : {}) },
      );
      if (compiled.failed) return await finish(false, compiled.errors);
      const out = await runOrchestration({
        low: compiled.low,
        jobs: stepJobs(d, jid, req.user, runner),
        test: a.test,
        ...(a.saltenv ? { saltenv: a.saltenv } : {}),
        modules: [testModule()],
        onStep: (tag, res) => recordStep(d, jid, self, tag, stored(res)),
      });
      const steps = Object.fromEntries(Object.entries(out.running).map(([tag, res]) => [tag, stored(res)]));
      return await finish(out.retcode === 0, steps);
    } catch (e) {
      d.log.error({ jid, err: (e as Error).message }, 'orchestration failed');
      return await finish(false, [(e as Error).message]);
    }
  })();
  return { jid, done };
}

/** The runners this master has, by name (Salt's `salt-run` functions). */
export function masterRunners(d: OrchestrationDeps): { start: (req: RunnerRequest) => Promise<StartedRunner>; run: RunRunner } {
  const start = (req: RunnerRequest): Promise<StartedRunner> => {
    if (req.fun === 'state.orchestrate' || req.fun === 'state.orch') return startOrchestration(d, { ...req, fun: 'state.orchestrate' }, run);
    return Promise.reject(masterErrors.make('BRINE_ERR_MASTER_UNKNOWN_RUNNER', { fun: req.fun }));
  };
  const run: RunRunner = async (req) => (await start(req)).done;
  return { start, run };
}
