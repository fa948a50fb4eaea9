import type { RunningDict, StateResult } from '@brine/core';
import type { StateResultRow } from '@brine/master';
import type { CommandIO } from '../command.js';
import { formatHighstate, formatHighstateErrors, type HighstateMode } from './highstate.js';

/**
 * The output of a state run across minions: the highstate outputter per minion (the stored
 * results of a minion that never returned), then a fleet summary. `brine run` and
 * `brine jobs show` both print through here, from the same data, so they print the same text.
 */

/** State functions whose return is a running dict (or a list of compile errors). */
export const STATE_RUN_FUNCTIONS = new Set(['state.apply', 'state.highstate', 'state.sls', 'state.single']);

export interface FleetReturn {
  success: boolean;
  retcode: number;
  return: unknown;
}

/** A stored state result row (the API's /v1/jobs/<jid>/states): the store's row, as served. */
export type FleetStateRow = Omit<StateResultRow, 'jid' | 'stored_at'>;

export interface FleetReport {
  jid: string;
  returns: Record<string, FleetReturn>;
  missing: Array<{ minion: string; reason: string }>;
  /** Stored state results; used for minions that did not return or whose return was trimmed. */
  states: FleetStateRow[];
}

export interface FleetOptions {
  color?: boolean;
  mode?: HighstateMode;
  /** How many of the slowest states the summary lists. */
  slowest?: number;
}

function isRunning(v: unknown): v is RunningDict {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  return Object.keys(v).every((k) => k.includes('_|-'));
}

function fromRows(rows: FleetStateRow[]): RunningDict {
  const out: RunningDict = {};
  for (const r of rows) {
    const s: Record<string, unknown> = {
      name: r.name,
      changes: r.changes,
      result: r.result,
      comment: r.comment,
      __sls__: r.sls ?? '',
      __run_num__: r.run_num,
      __id__: r.id,
    };
    if (r.start_time !== null) s.start_time = r.start_time;
    if (r.duration !== null) s.duration = r.duration;
    out[r.tag] = s as unknown as StateResult;
  }
  return out;
}

/** The note of a return the minion trimmed as a whole (`{__trimmed__: note}`), if it is one. */
function trimmedNote(v: unknown): string | undefined {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return undefined;
  const keys = Object.keys(v);
  const note = (v as Record<string, unknown>).__trimmed__;
  return keys.length === 1 && typeof note === 'string' ? note : undefined;
}

/** Salt's line for a targeted minion without a return (`reason` as the job store gives it). */
export function didNotReturn(reason: string | undefined): string {
  return `Minion did not return. [${reason === 'not connected' ? 'Not connected' : 'No response'}]`;
}

interface Slow {
  minion: string;
  tag: string;
  duration: number;
}

export function formatFleet(report: FleetReport, opts: FleetOptions = {}): string {
  const hs = { color: !!opts.color, ...(opts.mode ? { mode: opts.mode } : {}) };
  const blocks: string[] = [];
  const counts = { minions: 0, ok: 0, failed: 0, changed: 0, missing: 0, states: 0, sOk: 0, sFailed: 0, sChanged: 0 };
  const slow: Slow[] = [];
  const tally = (minion: string, running: RunningDict): boolean => {
    let changed = false;
    for (const [tag, r] of Object.entries(running)) {
      counts.states++;
      if (r.result === false) counts.sFailed++;
      else counts.sOk++;
      if (r.changes && Object.keys(r.changes).length > 0) {
        counts.sChanged++;
        changed = true;
      }
      if (typeof r.duration === 'number') slow.push({ minion, tag, duration: r.duration });
    }
    return changed;
  };
  const missing = new Map(report.missing.map((m) => [m.minion, m.reason]));
  const ids = [...new Set([...Object.keys(report.returns), ...missing.keys()])].sort();
  for (const id of ids) {
    counts.minions++;
    const ret = report.returns[id];
    if (!ret) {
      counts.missing++;
      counts.failed++;
      const rows = report.states.filter((s) => s.minion === id);
      const why = didNotReturn(missing.get(id));
      if (rows.length) {
        const running = fromRows(rows);
        if (tally(id, running)) counts.changed++;
        blocks.push(`${formatHighstate(running, { minion: id, ...hs })}\n    ${why} (${rows.length} state results stored)`);
      } else blocks.push(`${id}:\n    ${why}`);
      continue;
    }
    if (ret.success) counts.ok++;
    else counts.failed++;
    const rows = trimmedNote(ret.return) !== undefined ? report.states.filter((s) => s.minion === id) : [];
    if (rows.length) {
      // a return too large for a frame was trimmed by the minion: its state results were stored one by one
      const running = fromRows(rows);
      if (tally(id, running)) counts.changed++;
      blocks.push(`${formatHighstate(running, { minion: id, ...hs })}\n    ${trimmedNote(ret.return)}`);
    } else if (isRunning(ret.return)) {
      if (tally(id, ret.return)) counts.changed++;
      blocks.push(formatHighstate(ret.return, { minion: id, ...hs }));
    } else if (Array.isArray(ret.return) && ret.return.every((e) => typeof e === 'string')) {
      blocks.push(formatHighstateErrors(ret.return as string[], { minion: id, ...hs }));
    } else {
      blocks.push(`${id}:\n    ${typeof ret.return === 'string' ? ret.return : JSON.stringify(ret.return)}`);
    }
  }
  const n = opts.slowest ?? 5;
  const top = slow.sort((a, b) => b.duration - a.duration || a.minion.localeCompare(b.minion)).slice(0, n);
  const lines = [
    '',
    `Fleet summary for job ${report.jid}`,
    '-'.repeat(40),
    `Minions: ${counts.minions}  succeeded: ${counts.ok}  failed: ${counts.failed}  changed: ${counts.changed}` +
      (counts.missing ? `  did not return: ${counts.missing}` : ''),
    `States:  ${counts.states}  succeeded: ${counts.sOk}  failed: ${counts.sFailed}  changed: ${counts.sChanged}`,
  ];
  if (top.length) {
    lines.push('Slowest states:');
    for (const s of top) {
      const [state, id, , fun] = s.tag.split('_|-');
      lines.push(`  ${s.duration.toFixed(3).padStart(10)} ms  ${s.minion}  ${state}.${fun}  ${id}`);
    }
  }
  return blocks.join('\n') + '\n' + lines.join('\n') + '\n';
}

/** Exit code of a state run across minions: 0 all good, 2 a state failed, 1 otherwise failed. */
export function fleetExitCode(report: FleetReport): number {
  if (report.missing.length) return 1;
  const rets = Object.values(report.returns);
  if (rets.some((r) => !r.success && r.retcode !== 2)) return 1;
  return rets.some((r) => !r.success) ? 2 : 0;
}

/** Colour when stdout is a terminal (or --force-color) and NO_COLOR (--no-color) is not set. */
export function useColor(io: CommandIO): boolean {
  return (!!process.stdout.isTTY || !!io.env.BRINE_FORCE_COLOR) && !io.env.NO_COLOR;
}

/** Prints a state run across minions (outputter per minion, fleet summary); returns the exit code. */
export function printFleetRun(report: FleetReport, io: CommandIO, mode?: HighstateMode): number {
  io.stdout(formatFleet(report, { color: useColor(io), ...(mode ? { mode } : {}) }));
  return fleetExitCode(report);
}
