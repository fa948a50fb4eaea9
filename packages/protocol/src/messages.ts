/**
 * The minion channel: one WebSocket per minion, one JSON object per frame, each
 * `{v, type, id?, ...}`. The union below is the whole vocabulary of both directions.
 */
export const PROTOCOL_VERSION = 1;

/** Default upper bound of a frame; the master config can change it. */
export const DEFAULT_MAX_FRAME_BYTES = 1024 * 1024;

interface Base {
  v: number;
  /** Correlation id chosen by the sender; replies to a request carry it back as `ref`. */
  id?: string;
}

// ---- minion -> master ---------------------------------------------------------------

/** First frame of a session: who the minion says it is and its public key (SPKI PEM). */
export interface HelloMsg extends Base {
  type: 'hello';
  minion: string;
  pub: string;
  version: string;
  /**
   * A `brine call` on the minion's host: authenticated as the minion like its daemon, but beside
   * the daemon's session rather than in its place; it is sent no jobs and records its own (`job.new`).
   */
  call?: boolean;
}

/** Proof of key possession: Ed25519 signature over the challenge bound to this TLS session. */
export interface AuthMsg extends Base {
  type: 'auth';
  sig: string;
}

/** Latest grains; the master keeps them per minion (and overrides `id` with the session's). */
export interface GrainsMsg extends Base {
  type: 'grains';
  grains: Record<string, unknown>;
  /** Jobs still running on the minion (after a reconnect): jids, at most MAX_RUNNING_JIDS. */
  running: string[];
  /** Results and returns the minion still holds unacknowledged (its spool backlog) as it connects. */
  spool?: number;
}

/** The return of one job on this minion. */
export interface RetMsg extends Base {
  type: 'ret';
  jid: string;
  fun: string;
  success: boolean;
  retcode: number;
  return: unknown;
  started: string;
  finished: string;
}

/**
 * A request to the master answered for this session's identity only: `op` names what is
 * asked (state.compile, file.get, ...); the answer is a `res` (or an `error`) carrying `ref`.
 */
export interface ReqMsg extends Base {
  type: 'req';
  id: string;
  op: string;
  args: Record<string, unknown>;
}

/** One state result of a running job, streamed as it completes. */
export interface StateResultItem {
  run_num: number;
  tag: string;
  ret: Record<string, unknown>;
}

/** State results of one job (those finished since the last frame); spooled until acked. */
export interface StateResultsMsg extends Base {
  type: 'state_results';
  jid: string;
  fun: string;
  results: StateResultItem[];
}

/** One answer of `host_answers`: the function's value, or the error it raised. */
export type HostCallAnswer = { ok: true; value: unknown } | { ok: false; code: string; message: string };

/** The answers to a `host_calls`, one per call in its order; `ref` is the request's `id`. */
export interface HostAnswersMsg extends Base {
  type: 'host_answers';
  ref: string;
  answers: HostCallAnswer[];
}

// ---- master -> minion ---------------------------------------------------------------

/** One execution function call asked of the minion's host: `fun(*args, **kwargs)`. */
export interface HostCallItem {
  fun: string;
  args: unknown[];
  kwargs: Record<string, unknown>;
}

/**
 * While compiling this minion's job (`jid`), the master asks its host what templates called:
 * `cmd.has_exec`, `user.info`, `file.file_exists`, ... The minion runs each and answers with
 * `host_answers`.
 */
export interface HostCallsMsg extends Base {
  type: 'host_calls';
  id: string;
  jid?: string;
  calls: HostCallItem[];
}

/** The answer to a `req`. */
export interface ResMsg extends Base {
  type: 'res';
  ref: string;
  /** The answer; in an answer sent in parts, this part's piece of the answer's JSON text. */
  data: unknown;
  /** An answer larger than a frame comes in `parts` frames, `part` counting from 0 (large-frames.ts). */
  part?: number;
  parts?: number;
}

/** The master stored these state results of `jid` (by run number). */
export interface StateAckMsg extends Base {
  type: 'state_ack';
  jid: string;
  nums: number[];
}

export interface ChallengeMsg extends Base {
  type: 'challenge';
  nonce: string;
}

/** Where a minion key stands with the master (salt-key's lists). */
export type KeyState = 'pending' | 'accepted' | 'rejected' | 'denied';

/** Key state is not accepted (pending, rejected, denied); the master closes after this. */
export interface KeyStateMsg extends Base {
  type: 'key_state';
  state: Exclude<KeyState, 'accepted'>;
  /** Seconds the minion should wait before trying again (pending only). */
  retry_after?: number;
}

export interface WelcomeMsg extends Base {
  type: 'welcome';
  minion: string;
  /** The largest frame the master hears: the minion trims and batches what it sends to fit. */
  max_frame_bytes?: number;
  /**
   * Seconds over which the minion spreads its reconnect when this connection drops (a random
   * moment inside them), scaled to the fleet connected, so a master restart is not met by every
   * minion at once. Older minions ignore it.
   */
  reconnect_window?: number;
}

/**
 * The master is admitting more minions than it can at the moment: it closes this connection,
 * and the minion comes back at a random moment from `retry_from` (0 when absent) to
 * `retry_after` seconds (a window the master books at the rate it admits). Older minions take
 * it for a bad frame and retry with their own backoff.
 */
export interface BusyMsg extends Base {
  type: 'busy';
  retry_after: number;
  retry_from?: number;
}

export interface JobMsg extends Base {
  type: 'job';
  jid: string;
  fun: string;
  arg: unknown[];
  kwarg: Record<string, unknown>;
}

/** The master stored the return of `jid`; the minion may drop it from its spool. */
export interface AckMsg extends Base {
  type: 'ack';
  jid: string;
}

// ---- both ---------------------------------------------------------------------------

export interface ErrorMsg extends Base {
  type: 'error';
  code: string;
  message: string;
  /** The `id` of the frame this answers, when it had one. */
  ref?: string;
  /**
   * A refused `ret` or `state_results`: the job it was about. The refusal is final (the master
   * does not know that job for this minion), so the minion drops what it spooled for it.
   */
  jid?: string;
  /**
   * The master refused a `ret` or `state_results` frame of `jid` (too large, or invalid): the
   * minion trims it to `limit` bytes and sends it again, or quarantines it after repeated refusals.
   */
  refused?: 'ret' | 'state_results';
  /** The frame limit a refused frame was over. */
  limit?: number;
}

export interface PingMsg extends Base {
  type: 'ping';
}

export interface PongMsg extends Base {
  type: 'pong';
}

export type MinionToMaster = HelloMsg | AuthMsg | GrainsMsg | RetMsg | ReqMsg | StateResultsMsg | HostAnswersMsg | ErrorMsg | PingMsg | PongMsg;
export type MasterToMinion =
  ChallengeMsg | KeyStateMsg | WelcomeMsg | BusyMsg | JobMsg | AckMsg | ResMsg | StateAckMsg | HostCallsMsg | ErrorMsg | PingMsg | PongMsg;
export type Message = MinionToMaster | MasterToMinion;
export type MessageType = Message['type'];

/** A message without the envelope fields, for building one. */
export type Body<M extends Message> = M extends Message ? Omit<M, 'v'> : never;

export function encode<M extends Message>(msg: Body<M>): string {
  return JSON.stringify({ v: PROTOCOL_VERSION, ...msg });
}

/** The bytes a minion signs: a fixed context, its id, the nonce and the TLS exporter value. */
export function authPayload(minion: string, nonce: string, binding: string): Buffer {
  return Buffer.from(`brine-auth-v1\n${minion}\n${nonce}\n${binding}`, 'utf8');
}

/** Label of the TLS keying-material exporter (RFC 5705) both ends use for channel binding. */
export const EXPORTER_LABEL = 'EXPORTER-brine-channel-binding';
