let lastMs = -1;
let lastIso = '';

/**
 * The time now as an ISO string, made once per millisecond: a fleet's returns stamp three of
 * them each (the event, its row, the return's row), and a new Date's toISOString (formatted in
 * C++ through snprintf) took 0.9 us a time here, this 0.06 us.
 */
export function isoNow(): string {
  const ms = Date.now();
  if (ms !== lastMs) {
    lastMs = ms;
    lastIso = new Date(ms).toISOString();
  }
  return lastIso;
}
