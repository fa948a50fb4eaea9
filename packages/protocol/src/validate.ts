import { BrineError } from '@brine/core';
import { protocolErrors } from './errors.js';
import { DEFAULT_MAX_FRAME_BYTES, PROTOCOL_VERSION, type Message, type MessageType } from './messages.js';

type FieldKind = 'string' | 'nonempty' | 'boolean' | 'integer' | 'number' | 'object' | 'array' | 'string[]' | 'any';
type Spec = Record<string, { kind: FieldKind; optional?: boolean }>;

const req = (kind: FieldKind) => ({ kind });
const opt = (kind: FieldKind) => ({ kind, optional: true });

/** Fields of every message type beyond the envelope. */
const SPECS: Record<MessageType, Spec> = {
  hello: { minion: req('nonempty'), pub: req('nonempty'), version: req('string') },
  auth: { sig: req('nonempty') },
  grains: { grains: req('object'), running: req('string[]') },
  ret: {
    jid: req('nonempty'),
    fun: req('nonempty'),
    success: req('boolean'),
    retcode: req('integer'),
    return: req('any'),
    started: req('string'),
    finished: req('string'),
  },
  req: { id: req('nonempty'), op: req('nonempty'), args: req('object') },
  state_results: { jid: req('nonempty'), fun: req('nonempty'), results: req('array') },
  res: { ref: req('nonempty'), data: req('any') },
  state_ack: { jid: req('nonempty'), nums: req('array') },
  challenge: { nonce: req('nonempty') },
  key_state: { state: req('nonempty'), retry_after: opt('number') },
  welcome: { minion: req('nonempty') },
  job: { jid: req('nonempty'), fun: req('nonempty'), arg: req('array'), kwarg: req('object') },
  ack: { jid: req('nonempty') },
  error: { code: req('nonempty'), message: req('string'), ref: opt('string') },
  ping: {},
  pong: {},
};

const MINION_ID = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,252}$/;
const JID = /^\d{20}$/;

function kindOk(kind: FieldKind, value: unknown): boolean {
  switch (kind) {
    case 'string':
      return typeof value === 'string';
    case 'nonempty':
      return typeof value === 'string' && value.length > 0;
    case 'boolean':
      return typeof value === 'boolean';
    case 'integer':
      return Number.isInteger(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    case 'array':
      return Array.isArray(value);
    case 'string[]':
      return Array.isArray(value) && value.every((x) => typeof x === 'string');
    case 'any':
      return true;
  }
}

/** A minion id must be safe as a file name, a tag segment and a log field. */
export function isValidMinionId(id: string): boolean {
  return MINION_ID.test(id) && id !== '.' && id !== '..';
}

export type ParseResult =
  | { ok: true; msg: Message }
  | { ok: false; error: BrineError; ref?: string };

/**
 * Decodes and validates one frame. Never throws: a bad frame becomes a coded error the caller
 * sends back (and counts).
 */
export function parseFrame(raw: string | Buffer, maxBytes = DEFAULT_MAX_FRAME_BYTES): ParseResult {
  const size = typeof raw === 'string' ? Buffer.byteLength(raw) : raw.length;
  if (size > maxBytes) {
    return { ok: false, error: protocolErrors.make('BRINE_ERR_PROTO_FRAME_TOO_LARGE', { size, limit: maxBytes }) };
  }
  let data: unknown;
  try {
    data = JSON.parse(typeof raw === 'string' ? raw : raw.toString('utf8'));
  } catch (err) {
    return {
      ok: false,
      error: protocolErrors.make('BRINE_ERR_PROTO_BAD_JSON', { detail: (err as Error).message }),
    };
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    return { ok: false, error: protocolErrors.make('BRINE_ERR_PROTO_NOT_OBJECT') };
  }
  const obj = data as Record<string, unknown>;
  const ref = typeof obj.id === 'string' ? obj.id : undefined;
  const fail = (error: BrineError): ParseResult => (ref === undefined ? { ok: false, error } : { ok: false, error, ref });
  if (obj.v !== PROTOCOL_VERSION) {
    return fail(protocolErrors.make('BRINE_ERR_PROTO_BAD_VERSION', { got: JSON.stringify(obj.v), want: PROTOCOL_VERSION }));
  }
  const type = obj.type;
  if (typeof type !== 'string' || !Object.hasOwn(SPECS, type)) {
    return fail(protocolErrors.make('BRINE_ERR_PROTO_UNKNOWN_TYPE', { type: String(type) }));
  }
  if (obj.id !== undefined && typeof obj.id !== 'string') {
    return fail(protocolErrors.make('BRINE_ERR_PROTO_BAD_FIELD', { type, field: 'id', detail: 'must be a string' }));
  }
  const spec = SPECS[type as MessageType];
  for (const [field, { kind, optional }] of Object.entries(spec)) {
    const value = obj[field];
    if (value === undefined) {
      if (optional || kind === 'any') continue;
      return fail(protocolErrors.make('BRINE_ERR_PROTO_BAD_FIELD', { type, field, detail: 'is missing' }));
    }
    if (!kindOk(kind, value)) {
      return fail(protocolErrors.make('BRINE_ERR_PROTO_BAD_FIELD', { type, field, detail: `must be of type ${kind}` }));
    }
  }
  if (type === 'hello' && !isValidMinionId(obj.minion as string)) {
    return fail(
      protocolErrors.make('BRINE_ERR_PROTO_BAD_FIELD', { type, field: 'minion', detail: 'is not a valid minion id' }),
    );
  }
  if (type === 'state_results') {
    const bad = (obj.results as unknown[]).findIndex(
      (r) =>
        typeof r !== 'object' || r === null || !Number.isInteger((r as Record<string, unknown>).run_num) ||
        typeof (r as Record<string, unknown>).tag !== 'string' ||
        typeof (r as Record<string, unknown>).ret !== 'object' || (r as Record<string, unknown>).ret === null,
    );
    if (bad >= 0) {
      return fail(protocolErrors.make('BRINE_ERR_PROTO_BAD_FIELD', { type, field: `results[${bad}]`, detail: 'must be {run_num, tag, ret}' }));
    }
  }
  if (type === 'state_ack' && !(obj.nums as unknown[]).every((n) => Number.isInteger(n))) {
    return fail(protocolErrors.make('BRINE_ERR_PROTO_BAD_FIELD', { type, field: 'nums', detail: 'must be integers' }));
  }
  if ((type === 'ret' || type === 'job' || type === 'ack' || type === 'state_results' || type === 'state_ack') && !JID.test(obj.jid as string)) {
    return fail(protocolErrors.make('BRINE_ERR_PROTO_BAD_FIELD', { type, field: 'jid', detail: 'is not a jid' }));
  }
  return { ok: true, msg: obj as unknown as Message };
}
