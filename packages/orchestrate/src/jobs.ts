/**
 * What an orchestration needs from the master, injected (this package never imports the master):
 * publish a job and wait for its returns, follow the event bus, run a runner. The master's
 * implementation stores each job with the orchestration's jid as its parent.
 */

/** One targeted minion's return, as the job stored it. */
export interface MinionReturn {
  ret: unknown;
  retcode: number;
  success: boolean;
}

export interface JobCall {
  tgt: string | string[];
  tgt_type: string;
  fun: string;
  arg: unknown[];
  kwarg: Record<string, unknown>;
  batch?: string | null;
  /** Seconds to wait for the returns (the master's default when absent). */
  timeout?: number;
  /** The step's tag (`salt_|-id_|-name_|-fun`), for progress events. */
  step: string;
}

export interface JobOutcome {
  /** The child job, or null when the target matched no minion (nothing was published). */
  jid: string | null;
  /** The minions that returned, by id. */
  returns: Record<string, MinionReturn>;
  /** Targeted minions that did not return (not connected, or no answer within the timeout). */
  missing: string[];
}

export interface RunnerCall {
  fun: string;
  arg: unknown[];
  kwarg: Record<string, unknown>;
}

export interface RunnerResult {
  jid: string;
  success: boolean;
  ret: unknown;
}

export interface OrchestrationJobs {
  run(call: JobCall): Promise<JobOutcome>;
  /** Calls `fn` for every event whose tag matches the glob until the returned function is called. */
  subscribe(tagGlob: string, fn: (tag: string, data: unknown) => void): () => void;
  /** Runs a master-side runner (`salt.runner`); absent where there are none. */
  runner?: (call: RunnerCall) => Promise<RunnerResult>;
}
