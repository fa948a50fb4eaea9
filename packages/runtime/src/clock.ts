import { forgetAtSnapshotRestore } from '@brine/core';

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** `HH:MM:SS.` of the last second formatted (and its zone): a run starts thousands of states within one second. */
let lastSecond = NaN;
let lastOffset = NaN;
let lastPrefix = '';

/** Salt's `start_time`: local wall-clock time `HH:MM:SS.ffffff`. */
export function formatStartTime(d: Date, microsExtra = 0): string {
  const micros = d.getMilliseconds() * 1000 + Math.max(0, Math.min(999, Math.floor(microsExtra)));
  const second = Math.floor(d.getTime() / 1000);
  const offset = d.getTimezoneOffset();
  if (second !== lastSecond || offset !== lastOffset) {
    lastPrefix = `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.`;
    lastSecond = second;
    lastOffset = offset;
  }
  return lastPrefix + pad(micros, 6);
}

/** Milliseconds as Salt reports `duration`: a float rounded to the microsecond. */
export function roundDuration(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

/** Fixed for the thread's life; its getter costs more than a state's own work. */
let ORIGIN = performance.timeOrigin;

/**
 * The epoch milliseconds the current local second began at, and its `HH:MM:SS.`: states that
 * start within one second need no Date (a zone's offset changes only between seconds).
 */
let secondStart = NaN;
let secondPrefix = '';

// the startup snapshot's warm-up applies a tree: its origin and seconds (and zone) are the build's
forgetAtSnapshotRestore(() => {
  ORIGIN = performance.timeOrigin;
  lastSecond = lastOffset = secondStart = NaN;
  lastPrefix = secondPrefix = '';
});

/** formatStartTime of the instant `epoch` (fractional milliseconds since the epoch). */
export function startTimeOf(epoch: number): string {
  const ms = Math.floor(epoch);
  if (!(ms >= secondStart && ms < secondStart + 1000)) {
    const d = new Date(ms);
    secondPrefix = `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.`;
    secondStart = ms - d.getMilliseconds();
  }
  const micros = (ms - secondStart) * 1000 + Math.min(999, Math.floor((epoch - ms) * 1000));
  return secondPrefix + pad(micros, 6);
}

/** A stopwatch: the start time string now; `elapsed(clock)` gives the milliseconds since, later. */
export interface Clock {
  readonly startTime: string;
  readonly t0: number;
}

export function startClock(now?: () => Date): Clock {
  const t0 = performance.now();
  return { startTime: now ? formatStartTime(now()) : startTimeOf(ORIGIN + t0), t0 };
}

/** Salt's `duration` of a stopwatch started with startClock. */
export function elapsed(clock: Clock): number {
  return roundDuration(performance.now() - clock.t0);
}
