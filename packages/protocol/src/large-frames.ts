import { encode } from './messages.js';

/** Room in a frame for what surrounds a piece of an answer (v, type, ref, part, parts). */
const PART_ROOM = 512;

/**
 * The frames of the answer to a request: one `res`, or, when that is larger than `maxBytes`
 * (a compile of 30,000 states, a large file), the answer's JSON text cut into pieces that each
 * fit a frame. Pieces rather than one larger frame keep every frame within the limit both ends
 * enforce, so pings, acks and host calls still pass between them.
 */
export function encodeRes(ref: string, data: unknown, maxBytes: number): string[] {
  const whole = encode({ type: 'res', ref, data });
  if (Buffer.byteLength(whole) <= maxBytes) return [whole];
  const text = JSON.stringify(data);
  // a UTF-16 unit takes at most 3 bytes once escaped again into the frame ('"' and '\' take 2)
  const step = Math.max(1024, Math.floor((maxBytes - PART_ROOM - Buffer.byteLength(ref)) / 3));
  const pieces: string[] = [];
  for (let at = 0; at < text.length;) {
    let end = Math.min(text.length, at + step);
    // never split a surrogate pair: each piece stays well-formed text
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end--;
    pieces.push(text.slice(at, end));
    at = end;
  }
  return pieces.map((piece, part) => encode({ type: 'res', ref, data: piece, part, parts: pieces.length }));
}

/** What a `ret` or `state_results` frame is about, read from its start without parsing it. */
export interface ResultFrameHead {
  type: 'ret' | 'state_results';
  jid: string;
}

/**
 * The type and jid of a result frame too large (or too broken) to be parsed: minions encode
 * `{"v":1,"type":...,"jid":...}` first, so the head of the frame names them. The master puts
 * them in its refusal, and the minion knows which spooled item to trim or set aside.
 */
export function peekResultFrame(raw: string | Buffer): ResultFrameHead | undefined {
  const head = typeof raw === 'string' ? raw.slice(0, 256) : raw.subarray(0, 256).toString('latin1');
  const type = /^\{"v":1,"type":"(ret|state_results)",(?:"id":"[^"]{0,64}",)?"jid":"(\d{20})"/.exec(head);
  return type ? { type: type[1] as ResultFrameHead['type'], jid: type[2]! } : undefined;
}
