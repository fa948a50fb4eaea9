import { Readable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { StoredReturn } from '../store.js';

/** Returns serialised between turns of the event loop at the most, and the time one slice may take. */
const RETURNS_PER_TURN = 200;
const SLICE_MS = 10;

/** JSON text written out as it is, not serialised again (a stored return: returnEntryJson). */
export class JsonText {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
}

/**
 * A stored return as the JSON text of its report entry: JobReport's fields in their order, the
 * minion's value spliced in as the text it was stored as (parsing 10,000 highstates only to
 * write them out again held the loop for hundreds of ms, and their objects filled the heap).
 */
export function returnEntryJson(r: StoredReturn): JsonText {
  const q = JSON.stringify;
  return new JsonText(
    `{"fun":${q(r.fun)},"success":${q(r.success)},"retcode":${q(r.retcode)},"return":${r.returnJson},"started":${q(r.started)},"finished":${q(r.finished)},"stored_at":${q(r.stored_at)}}`,
  );
}

/**
 * A job report as JSON text in pieces, its returns serialised a slice at a time with a turn of the
 * event loop between slices: one JSON.stringify of 10,000 minions' state results, and the write of
 * that 100 MB string, held the master's loop for a second (bench/fleet.mjs 10000 20), stalling
 * every minion and API call meanwhile.
 */
export async function* reportJsonChunks<T extends { returns: Record<string, unknown> }>(body: T): AsyncGenerator<string> {
  const { returns, ...rest } = body;
  const head = JSON.stringify(rest);
  let chunk = `${head.slice(0, -1)}${head === '{}' ? '' : ','}"returns":{`;
  let first = true;
  let inSlice = 0;
  let sliceStart = performance.now();
  for (const minion of Object.keys(returns)) {
    const value = returns[minion];
    chunk += `${first ? '' : ','}${JSON.stringify(minion)}:${value instanceof JsonText ? value.text : JSON.stringify(value ?? null)}`;
    first = false;
    if (++inSlice >= RETURNS_PER_TURN || performance.now() - sliceStart > SLICE_MS) {
      yield chunk;
      chunk = '';
      await nextTurn();
      inSlice = 0;
      sliceStart = performance.now();
    }
  }
  yield `${chunk}}}`;
}

/** The whole text (tests, small callers). */
export async function reportJson<T extends { returns: Record<string, unknown> }>(body: T): Promise<string> {
  let text = '';
  for await (const piece of reportJsonChunks(body)) text += piece;
  return text;
}

/** The report as a stream for a reply: written piece by piece, as the socket takes it. */
export function reportStream<T extends { returns: Record<string, unknown> }>(body: T): Readable {
  return Readable.from(reportJsonChunks(body), { objectMode: false });
}
