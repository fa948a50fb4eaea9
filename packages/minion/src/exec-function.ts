import type { FileClient, StateRegistry, StateResult } from '@brine/core';
import type { ExecContext, ExecFunction } from '@brine/exec';
import type { MinionSchedule } from './schedule.js';
import type { SyncedStates } from './sync-states.js';

export interface RunningJob {
  jid: string;
  fun: string;
  arg: unknown[];
  kwarg: Record<string, unknown>;
  started: string;
  pid: number;
}

/** What the minion's own functions (state.*, saltutil.*) see besides the host: its jobs and master channel. */
export interface MinionExecContext extends ExecContext {
  running(): RunningJob[];
  kill(jid: string): boolean;
  /** saltutil.refresh_grains: collects the grains again (the grains file and config over the host's), tells the master. */
  refreshGrains?(): Promise<void>;
  /** saltutil.refresh_pillar: asks the master for this minion's pillar and fires the refresh hook. */
  refreshPillar?(): Promise<void>;
  /** What state functions need of the minion (absent for a template's host call). */
  state?: StateHost;
  /** The daemon's schedule (schedule.*); absent in `brine call`. */
  schedule?: MinionSchedule;
}

/** A function only a minion can run (it needs the master channel or the job table). */
export type MinionFunction = ExecFunction<MinionExecContext>;

/** The minion's side of a state run: the master channel, streaming, the run lock. */
export interface StateHost {
  id: string;
  /** The function being run (state.apply, ...). */
  fun: string;
  /** Asks the master; the answer is for this minion's authenticated id only. */
  request(op: string, args: Record<string, unknown>): Promise<unknown>;
  /** Streams one state result to the master (spooled until acknowledged). */
  emit(tag: string, result: StateResult): void;
  /** Claims the one state run of this minion; throws Salt's "is running as PID" message when taken. */
  claim(): () => void;
  /** salt:// through the master's file server, cached per minion. */
  files: FileClient;
  /** The shipped state modules (or a test's), before the tree's `_states/` are synced over them. */
  registry: StateRegistry;
  /** Salt's saltutil.sync_states: mirrors the tree's `_states/` of `saltenv` and loads them. */
  syncStates(saltenv: string): Promise<SyncedStates>;
}
