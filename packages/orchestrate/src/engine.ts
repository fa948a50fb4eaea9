import { type CommandRunner, type FileClient, type LowChunk, type RunningDict, type StateModule, type StateRegistry, type StateResult } from '@brine/core';
import { runLowState } from '@brine/runtime';
import { orchestrateErrors } from './errors.js';
import type { OrchestrationJobs } from './jobs.js';
import { saltModule } from './salt-module.js';

export interface OrchestrateOptions {
  /** The orchestration's low state, compiled and ordered (render.ts, or the master's compile workers). */
  low: LowChunk[];
  jobs: OrchestrationJobs;
  /** `state.orchestrate ... test=True`: every step says what it would do. */
  test?: boolean;
  saltenv?: string;
  /** Further state modules the steps may use (the master passes the states package's `test`). */
  modules?: StateModule[];
  /** Each step's result as it lands (live progress). */
  onStep?: (tag: string, result: StateResult) => void;
  failhard?: boolean;
  signal?: AbortSignal;
}

export interface OrchestrateOutcome {
  running: RunningDict;
  /** 0 when every step succeeded, 1 when one failed (salt-run's exit status). */
  retcode: number;
}

/** The master runs no command and serves no file to an orchestration step: it only publishes. */
const noHost: CommandRunner & FileClient = {
  run: () => Promise.reject(orchestrateErrors.make('BRINE_ERR_ORCH_HOST_ACCESS', { what: 'a command', step: '(cmd)' })),
  get: () => Promise.reject(orchestrateErrors.make('BRINE_ERR_ORCH_HOST_ACCESS', { what: 'a salt:// file', step: '(file)' })),
};

/** The registry of an orchestration: `salt.*` and the modules given. */
export function orchestrationRegistry(modules: StateModule[]): StateRegistry {
  const byName = new Map(modules.map((m) => [m.name, m]));
  return {
    module: (name) => byName.get(name),
    lookup: (state, fun) => {
      const module = byName.get(state);
      const fn = module?.functions[fun];
      return module && fn ? { module, fn } : undefined;
    },
    list: () => [...byName.values()].flatMap((m) => Object.keys(m.functions).map((f) => `${m.name}.${f}`)).sort(),
  };
}

/**
 * Runs an orchestration: the runtime evaluates every requisite between the steps (require,
 * watch, onfail, onchanges, prereq, listen, arg_bind) exactly as in a minion's run; the steps
 * themselves publish jobs through `jobs`.
 */
export async function runOrchestration(o: OrchestrateOptions): Promise<OrchestrateOutcome> {
  const salt = saltModule({ jobs: o.jobs, ...(o.saltenv !== undefined ? { saltenv: o.saltenv } : {}) });
  const registry = orchestrationRegistry([...(o.modules ?? []), salt]);
  const outcome = await runLowState(o.low, {
    registry,
    cmd: noHost,
    files: noHost,
    ...(o.test ? { test: true } : {}),
    ...(o.failhard ? { failhard: true } : {}),
    ...(o.signal ? { signal: o.signal } : {}),
    ...(o.onStep ? { onResult: o.onStep } : {}),
  });
  return { running: outcome.running, retcode: outcome.retcode === 0 ? 0 : 1 };
}
