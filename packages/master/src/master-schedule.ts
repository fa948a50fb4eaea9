import { SCHEDULE_GLOBAL_KEYS, ScheduleEngine, type Logger, type ScheduleClock, type ScheduleEntry } from '@brine/core';
import { masterErrors } from './errors.js';

import type { RunRunner } from './runners.js';

export type { RunnerOutcome, RunnerRequest, RunRunner } from './runners.js';

export interface MasterScheduleDeps {
  /** The master config's `schedule`. */
  schedule: Record<string, unknown>;
  /** Runs a runner function (state.orchestrate, ...); absent until runners exist on this master. */
  runRunner?: RunRunner;
  log: Logger;
  /** The config file, named in the errors of its entries. */
  file?: string;
  clock?: ScheduleClock;
}

/**
 * Salt's master-side schedule: the master config's `schedule` entries run runner functions
 * (an orchestration every night: `function: state.orchestrate`, `args: [orch.nightly]`), each
 * run as the user `schedule:<name>`. Each master of a cluster runs its own, as Salt's masters do.
 */
export function startMasterSchedule(deps: MasterScheduleDeps): ScheduleEngine {
  const { log } = deps;
  const engine = new ScheduleEngine({
    log,
    ...(deps.clock ? { clock: deps.clock } : {}),
    run: async (item) => {
      if (!deps.runRunner) throw masterErrors.make('BRINE_ERR_MASTER_SCHEDULE_NO_RUNNER', { name: item.name, fun: item.function });
      const out = await deps.runRunner({ fun: item.function, arg: item.args, kwarg: item.kwargs, user: `schedule:${item.name}` });
      log.info(
        { event: 'schedule_run', schedule: item.name, fun: item.function, jid: out.jid, success: out.success },
        `scheduled runner '${item.name}' (${item.function}) ran as job ${out.jid}: ${out.success ? 'succeeded' : 'failed'}`,
      );
    },
  });
  const entries: ScheduleEntry[] = Object.entries(deps.schedule)
    .filter(([name]) => !SCHEDULE_GLOBAL_KEYS.includes(name))
    .map(([name, raw]) => ({ name, raw, where: deps.file ?? 'master config' }));
  engine.enabled = deps.schedule.enabled !== false;
  for (const e of engine.load(entries)) log.error({ event: 'schedule_refused', code: e.code }, e.message);
  return engine;
}
