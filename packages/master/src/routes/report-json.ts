import { setImmediate as nextTurn } from 'node:timers/promises';

/** Returns serialised between turns of the event loop at the most, and the time one slice may take. */
const RETURNS_PER_TURN = 200;
const SLICE_MS = 10;

/**
 * A job report as JSON text, its returns serialised a slice at a time with a turn of the event
 * loop between slices: one JSON.stringify of 10,000 minions' state results held the master's loop
 * for a second (bench/fleet.mjs 10000 20), stalling every minion and API call meanwhile.
 */
export async function reportJson<T extends { returns: Record<string, unknown> }>(body: T): Promise<string> {
  const { returns, ...rest } = body;
  const parts: string[] = [];
  let inSlice = 0;
  let sliceStart = performance.now();
  for (const minion of Object.keys(returns)) {
    parts.push(`${JSON.stringify(minion)}:${JSON.stringify(returns[minion] ?? null)}`);
    if (++inSlice >= RETURNS_PER_TURN || performance.now() - sliceStart > SLICE_MS) {
      await nextTurn();
      inSlice = 0;
      sliceStart = performance.now();
    }
  }
  const head = JSON.stringify(rest);
  return `${head.slice(0, -1)}${head === '{}' ? '' : ','}"returns":{${parts.join(',')}}}`;
}
