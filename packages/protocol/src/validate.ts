import { BrineError } from '@brine/core';
import { protocolErrors } from './errors.js';
import { checkJsonBounds, MAX_DATA_DEPTH, MAX_GRAINS_BYTES, MAX_RESULT_DEPTH } from './json-bounds.js';
import { DEFAULT_MAX_FRAME_BYTES, PROTOCOL_VERSION, type Message, type MessageType } from './messages.js';

type BaseKind = 'string' | 'nonempty' | 'boolean' | 'integer' | 'number' | 'object' | 'array' | 'string[]' | 'any';
/** A base kind, or one narrowed further once the base kind holds (see REFINED). */
type FieldKind = BaseKind | 'jid' | 'jid[]' | 'minion_id' | 'integer[]' | 'state_results' | 'host_calls' | 'host_answers' | 'grains' | 'args' | 'result';
type Spec = Record<string, { kind: FieldKind; optional?: boolean }>;

const req = (kind: FieldKind) => ({ kind });
const opt = (kind: FieldKind) => ({ kind, optional: true });

/** Fields of every message type beyond the envelope. */
const SPECS: Record<MessageType, Spec> = {
  hello: { minion: req('minion_id'), pub: req('nonempty'), version: req('string'), call: opt('boolean') },
  auth: { sig: req('nonempty') },
  grains: { grains: req('grains'), running: req('jid[]'), spool: opt('integer') },
  ret: {
    jid: req('jid'),
    fun: req('nonempty'),
    success: req('boolean'),
    retcode: req('integer'),
    return: req('result'),
    started: req('string'),
    finished: req('string'),
  },
  req: { id: req('nonempty'), op: req('nonempty'), args: req('args') },
  state_results: { jid: req('jid'), fun: req('nonempty'), results: req('state_results') },
  res: { ref: req('nonempty'), data: req('any'), part: opt('integer'), parts: opt('integer') },
  state_ack: { jid: req('jid'), nums: req('integer[]') },
  challenge: { nonce: req('nonempty') },
  key_state: { state: req('nonempty'), retry_after: opt('number') },
  welcome: { minion: req('nonempty'), max_frame_bytes: opt('integer'), reconnect_window: opt('number') },
  busy: { retry_after: req('number'), retry_from: opt('number') },
  job: { jid: req('jid'), fun: req('nonempty'), arg: req('array'), kwarg: req('object') },
  ack: { jid: req('jid') },
  host_calls: { id: req('nonempty'), jid: opt('jid'), calls: req('host_calls') },
  host_answers: { ref: req('nonempty'), answers: req('host_answers') },
  error: { code: req('nonempty'), message: req('string'), ref: opt('string'), jid: opt('jid'), refused: opt('string'), limit: opt('integer') },
  ping: {},
  pong: {},
};

const MINION_ID = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,252}$/;

/** A job id: the UTC time as YYYYMMDDhhmmssffffff. */
export const JID_PATTERN = /^\d{20}$/;

/** Jobs a minion may report running at once (far above any max_concurrent_jobs in use). */
export const MAX_RUNNING_JIDS = 1024;

export function isJid(s: string): boolean {
  return JID_PATTERN.test(s);
}

function baseOk(kind: BaseKind, value: unknown): boolean {
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

type Refined = Exclude<FieldKind, BaseKind>;
type Problem = { field: string; detail: string } | BrineError | undefined;

/** A coded error when `value` (the field `field` of a `type` frame) is too deep or too large. */
export function boundsError(type: string, field: string, value: unknown, maxDepth: number, maxBytes = Infinity): BrineError | undefined {
  const p = checkJsonBounds(value, field, maxDepth, maxBytes);
  if (!p) return undefined;
  if (p.kind === 'depth') return protocolErrors.make('BRINE_ERR_PROTO_TOO_DEEP', { type, field, limit: p.limit, at: p.at });
  return protocolErrors.make('BRINE_ERR_PROTO_FIELD_TOO_LARGE', { type, field, size: p.size, limit: p.limit });
}

/** The first element of `list` out of bounds, as its coded error. */
function firstOutOfBounds(type: string, field: string, list: unknown[], pick: (item: unknown) => unknown, maxDepth: number): BrineError | undefined {
  for (let i = 0; i < list.length; i++) {
    const e = boundsError(type, `${field}[${i}]`, pick(list[i]), maxDepth);
    if (e) return e;
  }
  return undefined;
}

/**
 * The narrowed kinds: the base kind a value must have first (named in the error), then the
 * finer check, which says what is wrong (and may name an element rather than the field).
 */
const REFINED: Record<Refined, { base: BaseKind; check(field: string, value: unknown, type: string): Problem }> = {
  jid: { base: 'nonempty', check: (field, v) => (isJid(v as string) ? undefined : { field, detail: 'is not a jid' }) },
  'jid[]': {
    base: 'string[]',
    check: (field, v) => {
      const list = v as string[];
      if (list.length > MAX_RUNNING_JIDS) return { field, detail: `has ${list.length} entries, more than ${MAX_RUNNING_JIDS}` };
      const bad = list.findIndex((j) => !isJid(j));
      return bad < 0 ? undefined : { field: `${field}[${bad}]`, detail: 'is not a jid' };
    },
  },
  minion_id: {
    base: 'nonempty',
    check: (field, v) => (isValidMinionId(v as string) ? undefined : { field, detail: 'is not a valid minion id' }),
  },
  'integer[]': {
    base: 'array',
    check: (field, v) => ((v as unknown[]).every((n) => Number.isInteger(n)) ? undefined : { field, detail: 'must be integers' }),
  },
  state_results: {
    base: 'array',
    check: (field, v, type) => {
      const bad = (v as unknown[]).findIndex((r) => {
        const o = r as Record<string, unknown>;
        return typeof r !== 'object' || r === null || !Number.isInteger(o.run_num) || typeof o.tag !== 'string' || typeof o.ret !== 'object' || o.ret === null;
      });
      if (bad >= 0) return { field: `${field}[${bad}]`, detail: 'must be {run_num, tag, ret}' };
      return firstOutOfBounds(type, field, v as unknown[], (r) => (r as { ret: unknown }).ret, MAX_RESULT_DEPTH);
    },
  },
  host_calls: {
    base: 'array',
    check: (field, v) => {
      const bad = (v as unknown[]).findIndex((c) => {
        const o = c as Record<string, unknown>;
        return !baseOk('object', c) || !baseOk('nonempty', o.fun) || !baseOk('array', o.args) || !baseOk('object', o.kwargs);
      });
      return bad < 0 ? undefined : { field: `${field}[${bad}]`, detail: 'must be {fun, args, kwargs}' };
    },
  },
  host_answers: {
    base: 'array',
    check: (field, v, type) => {
      const bad = (v as unknown[]).findIndex((a) => {
        if (!baseOk('object', a)) return true;
        const o = a as Record<string, unknown>;
        if (o.ok === true) return !Object.hasOwn(o, 'value');
        return o.ok !== false || !baseOk('nonempty', o.code) || !baseOk('string', o.message);
      });
      if (bad >= 0) return { field: `${field}[${bad}]`, detail: 'must be {ok: true, value} or {ok: false, code, message}' };
      return firstOutOfBounds(type, field, v as unknown[], (a) => (a as { value?: unknown }).value, MAX_DATA_DEPTH);
    },
  },
  grains: { base: 'object', check: (field, v, type) => boundsError(type, field, v, MAX_DATA_DEPTH, MAX_GRAINS_BYTES) },
  args: { base: 'object', check: (field, v, type) => boundsError(type, field, v, MAX_DATA_DEPTH) },
  result: { base: 'any', check: (field, v, type) => boundsError(type, field, v, MAX_RESULT_DEPTH) },
};

const isRefined = (kind: FieldKind): kind is Refined => Object.hasOwn(REFINED, kind);
const baseOf = (kind: FieldKind): BaseKind => (isRefined(kind) ? REFINED[kind].base : kind);

/**
 * Per type, the fields whose finer checks run once every field has its base kind; the jid is
 * checked last, so a frame with several faults names the same one it always did.
 */
const REFINE_ORDER: Record<string, ReadonlyArray<readonly [string, Refined]>> = Object.fromEntries(
  Object.entries(SPECS).map(([type, spec]) => [
    type,
    Object.entries(spec)
      .filter(([, s]) => isRefined(s.kind))
      .sort(([, a], [, b]) => Number(a.kind === 'jid') - Number(b.kind === 'jid'))
      .map(([field, s]) => [field, s.kind as Refined] as const),
  ]),
);

/**
 * Per type, its fields with their base kinds, listed once: a frame's check walks this instead of
 * Object.entries of its spec (arrays made for every frame, on the master for every return).
 */
const FIELDS: Record<string, ReadonlyArray<readonly [string, BaseKind, boolean]>> = Object.fromEntries(
  Object.entries(SPECS).map(([type, spec]) => [type, Object.entries(spec).map(([field, s]) => [field, baseOf(s.kind), s.optional === true] as const)]),
);

/** A minion id must be safe as a file name, a tag segment and a log field. */
export function isValidMinionId(id: string): boolean {
  return MINION_ID.test(id) && id !== '.' && id !== '..';
}

export type ParseResult = { ok: true; msg: Message } | { ok: false; error: BrineError; ref?: string };

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
  for (const [field, base, optional] of FIELDS[type]!) {
    const value = obj[field];
    if (value === undefined) {
      if (optional || base === 'any') continue;
      return fail(protocolErrors.make('BRINE_ERR_PROTO_BAD_FIELD', { type, field, detail: 'is missing' }));
    }
    if (!baseOk(base, value)) {
      return fail(protocolErrors.make('BRINE_ERR_PROTO_BAD_FIELD', { type, field, detail: `must be of type ${base}` }));
    }
  }
  for (const [field, kind] of REFINE_ORDER[type]!) {
    const value = obj[field];
    if (value === undefined) continue;
    const bad = REFINED[kind].check(field, value, type);
    if (bad instanceof BrineError) return fail(bad);
    if (bad) return fail(protocolErrors.make('BRINE_ERR_PROTO_BAD_FIELD', { type, ...bad }));
  }
  return { ok: true, msg: obj as unknown as Message };
}
