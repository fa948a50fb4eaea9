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
const ORIGIN = performance.timeOrigin;

/** A stopwatch: the start time string now, the elapsed milliseconds later. */
export function startClock(now?: () => Date): { startTime: string; elapsed(): number } {
  const t0 = performance.now();
  let startTime: string;
  if (now) {
    startTime = formatStartTime(now());
  } else {
    const epoch = ORIGIN + t0;
    const d = new Date(Math.floor(epoch));
    startTime = formatStartTime(d, (epoch - Math.floor(epoch)) * 1000);
  }
  return { startTime, elapsed: () => roundDuration(performance.now() - t0) };
}
