import { sign } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { isIP } from 'node:net';
import { connect as tlsConnect, createSecureContext, type ConnectionOptions, type SecureContext, type TLSSocket } from 'node:tls';
import { BrineError, type Logger } from '@brine/core';
import { authPayload, encode, EXPORTER_LABEL, parseFrame, type Body, type MasterToMinion, type MinionToMaster, type ResMsg } from '@brine/protocol';
import WebSocket from 'ws';
import type { MinionConfig } from './config.js';
import { explainConnectFailure } from './connect-failure.js';
import { minionErrors } from './errors.js';
import type { MinionIdentity } from './identity.js';
import { formatMaster, type MasterAddress } from './master-list.js';

interface PendingRequest {
  op: string;
  args: Record<string, unknown>;
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
  timer: NodeJS.Timeout;
  /** The pieces received so far of an answer sent in parts. */
  pieces?: string[];
}

/** Seconds a request to the master may wait (including time spent reconnecting). */
const REQUEST_TIMEOUT_S = 300;

/** Frames the connection does not handle itself: what the minion is asked to do. */
export type WorkFrame = Extract<MasterToMinion, { type: 'job' | 'ack' | 'state_ack' | 'host_calls' }>;

/** One try at the master: its channel binding, and what the retry and the warning need. */
interface ConnectTry {
  binding: string;
  retryAfter?: number;
  /** What ended a try that never reached the master (the socket's error), for the warning. */
  failure?: Error;
  answered: boolean;
  /** The master was busy admitting others: come back inside this window (seconds from now). */
  busy?: { from: number; to: number };
  /** The master's certificate checked out (or the session resumed one that had): its TLS session may be kept. */
  trusted?: boolean;
  /** A session ticket that arrived before the certificate was checked. */
  ticket?: Buffer;
}

/**
 * One TLS context for every connection of this process: without one, each try builds its own
 * (an OpenSSL context with the default CA store), a third of a client handshake's CPU. The
 * master is checked by its pinned fingerprint, never by a CA, so nothing in it differs per try.
 */
let clientContext: SecureContext | undefined;

/** The longest a master may ask a minion to stay away (busy, reconnect window), in seconds. */
const MAX_WINDOW_S = 600;

/**
 * The minion's channel to its master: TLS WebSocket with the master's certificate pinned,
 * enrollment (hello, signed challenge), reconnects with backoff, and requests answered by `res`
 * or `error`. With several masters (`master:` a list) it talks to one at a time and, when that
 * one is lost or cannot be reached, tries the next in turn (round robin) with the same backoff;
 * the masters share one TLS identity, so one pinned fingerprint covers them all. Emits
 * 'welcome' once authenticated (before requests asked earlier are sent again), 'work' for jobs,
 * acknowledgements and host calls, 'pending', 'rejected', 'denied', 'fatal' and 'master-error'.
 */
export class MasterConnection extends EventEmitter {
  private ws?: WebSocket;
  private authed = false;
  private stopped = false;
  private attempt = 0;
  /** Index in `config.masters` of the master connected or being tried. */
  private current = 0;
  private timer?: NodeJS.Timeout;
  private readonly requests = new Map<string, PendingRequest>();
  private reqSeq = 0;
  /** The largest frame the master connected to hears (from its welcome). */
  private masterFrameBytes?: number;
  /** Seconds over which to spread the reconnect when the connection drops (from the welcome). */
  private reconnectWindow = 0;
  /** The last TLS session of each master (by index), offered on the next connection to resume it. */
  private readonly tlsSessions = new Map<number, Buffer>();

  private readonly config: MinionConfig;
  private readonly identity: MinionIdentity;
  private readonly log: Logger;
  private readonly version: string;
  /**
   * A `brine call`: one try of each listed master and no reconnect; whatever ends the session
   * early (unreachable, key not accepted, lost) is a 'fatal' error naming the cause.
   */
  private readonly call: boolean;
  /** Call mode: the key state the master answered with, said when the try ends. */
  private keyRefusal?: string;
  constructor(config: MinionConfig, identity: MinionIdentity, log: Logger, version: string, call = false) {
    super();
    this.config = config;
    this.identity = identity;
    this.log = log;
    this.version = version;
    this.call = call;
  }

  get connected(): boolean {
    return this.authed;
  }

  /** Seconds the master's welcome asked to spread a reconnect over (0: the backoff alone). */
  get reconnectWindowSeconds(): number {
    return this.reconnectWindow;
  }

  /** The master connected to (or being tried now). */
  get master(): MasterAddress {
    return this.config.masters[this.current]!;
  }

  start(): void {
    this.connect();
  }

  /** Stops reconnecting, fails the open requests and closes the socket. */
  stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    for (const [id, r] of this.requests) {
      clearTimeout(r.timer);
      r.reject(new BrineError('BRINE_ERR_MINION_STOPPED', 'the minion is stopping'));
      this.requests.delete(id);
    }
    const ws = this.ws;
    return new Promise((resolve) => {
      if (!ws || ws.readyState === WebSocket.CLOSED) return resolve();
      ws.once('close', () => resolve());
      ws.terminate();
    });
  }

  /** The largest frame to send: ours, or the master's when it hears less. */
  get frameLimit(): number {
    return Math.min(this.config.max_frame_bytes, this.masterFrameBytes ?? Infinity);
  }

  /** Sends a frame when the socket is open; false when it is not. */
  send(msg: Body<MinionToMaster>): boolean {
    return this.sendFrame(encode(msg));
  }

  /** Sends an encoded frame when the socket is open; false when it is not. */
  sendFrame(text: string): boolean {
    const ws = this.ws;
    if (!ws || ws.readyState !== WebSocket.OPEN) return false;
    ws.send(text);
    return true;
  }

  /** Asks the master; waits through reconnects (the request is sent again after a welcome). */
  request(op: string, args: Record<string, unknown>): Promise<unknown> {
    const id = `r${++this.reqSeq}`;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.requests.delete(id);
        reject(new BrineError('BRINE_ERR_MINION_MASTER_TIMEOUT', `the master did not answer '${op}' within ${REQUEST_TIMEOUT_S} s`));
      }, REQUEST_TIMEOUT_S * 1000);
      timer.unref();
      this.requests.set(id, { op, args, resolve, reject, timer });
      if (this.authed) this.send({ type: 'req', id, op, args });
    });
  }

  private url(): string {
    return `wss://${formatMaster(this.master)}/ws`;
  }

  private connect(): void {
    if (this.stopped) return;
    this.authed = false;
    const t: ConnectTry = { binding: '', answered: false };
    const index = this.current;
    const session = this.tlsSessions.get(index);
    const ws = new WebSocket(this.url(), {
      // the certificate is self-signed: it is checked by its pinned fingerprint instead
      rejectUnauthorized: false,
      maxPayload: this.config.max_frame_bytes * 4,
      perMessageDeflate: false,
      handshakeTimeout: 10_000,
      ...(session ? { session } : {}),
      // ws hands its TLS options (host, port, session, ...) to this instead of tls.connect
      createConnection: ((opts: ConnectionOptions) => this.tlsConnect(opts, index, t)) as unknown as WebSocket.ClientOptions['createConnection'],
    });
    this.ws = ws;
    ws.on('open', () => {
      const socket = (ws as unknown as { _socket: TLSSocket })._socket;
      // a resumed session shows no certificate: it was kept only from a connection whose certificate checked out
      if (!socket.isSessionReused() && !this.checkFingerprint(socket.getPeerCertificate().fingerprint256)) {
        ws.terminate();
        return;
      }
      t.trusted = true;
      if (t.ticket) this.tlsSessions.set(index, t.ticket);
      t.binding = socket.exportKeyingMaterial(32, EXPORTER_LABEL, Buffer.alloc(0)).toString('base64');
      this.send({ type: 'hello', minion: this.config.id, pub: this.identity.publicPem, version: this.version, ...(this.call ? { call: true } : {}) });
    });
    ws.on('message', (data) => {
      // a Buffer (binaryType nodebuffer): its length is the size, no second pass over a string
      const r = parseFrame(data as Buffer, this.config.max_frame_bytes * 4);
      if (!r.ok) {
        this.log.warn({ code: r.error.code }, `bad frame from master: ${r.error.message}`);
        return;
      }
      t.answered = true;
      this.onFrame(r.msg as MasterToMinion, t);
    });
    ws.on('error', (err) => {
      t.failure = err;
      this.log.debug({ err: err.message }, 'connection error');
    });
    ws.on('close', () => this.onClose(ws, t));
  }

  /**
   * The TLS connection of a try (what ws would open), keeping the session tickets the master
   * sends, so the next connection to it resumes rather than repeats the full handshake.
   */
  private tlsConnect(opts: ConnectionOptions, index: number, t: ConnectTry): TLSSocket {
    const host = opts.host ?? '';
    clientContext ??= createSecureContext();
    const socket = tlsConnect({ ...opts, servername: isIP(host) ? '' : host, secureContext: clientContext });
    socket.on('session', (ticket: Buffer) => {
      if (t.trusted) this.tlsSessions.set(index, ticket);
      else t.ticket = ticket;
    });
    return socket;
  }

  /** A frame from the master on the current connection. */
  private onFrame(msg: MasterToMinion, t: ConnectTry): void {
    switch (msg.type) {
      case 'challenge': {
        const sig = sign(null, authPayload(this.config.id, msg.nonce, t.binding), this.identity.privateKey);
        this.send({ type: 'auth', sig: sig.toString('base64') });
        return;
      }
      case 'welcome':
        this.authed = true;
        this.attempt = 0;
        this.masterFrameBytes = msg.max_frame_bytes;
        this.reconnectWindow = Math.min(Math.max(msg.reconnect_window ?? 0, 0), MAX_WINDOW_S);
        this.emit('welcome');
        // requests asked before the connection dropped are asked again (they are all idempotent)
        for (const [id, req] of this.requests) {
          req.pieces = undefined;
          this.send({ type: 'req', id, op: req.op, args: req.args });
        }
        return;
      case 'key_state':
        t.retryAfter = msg.state === 'pending' ? this.config.acceptance_wait_time : Math.max(this.config.acceptance_wait_time, 1);
        this.onKeyState(msg.state, t.retryAfter);
        return;
      case 'busy': {
        const to = Math.min(Math.max(msg.retry_after, 0), MAX_WINDOW_S);
        t.busy = { from: Math.min(Math.max(msg.retry_from ?? 0, 0), to), to };
        return;
      }
      case 'res':
        if (msg.parts === undefined) this.settle(msg.ref)?.resolve(msg.data);
        else this.onPart(msg);
        return;
      case 'ping':
        this.send(msg.id === undefined ? { type: 'pong' } : { type: 'pong', id: msg.id });
        return;
      case 'error': {
        const req = msg.ref !== undefined ? this.settle(msg.ref) : undefined;
        if (req) {
          req.reject(new BrineError(msg.code, msg.message));
          return;
        }
        this.log.warn({ code: msg.code, ref: msg.ref }, `master: ${msg.message}`);
        this.emit('master-error', msg);
        return;
      }
      case 'job':
      case 'ack':
      case 'state_ack':
      case 'host_calls':
        this.emit('work', msg);
        return;
      default:
        return;
    }
  }

  /** A connection ended: say why, move to the next master if there are several, and try again later. */
  private onClose(ws: WebSocket, t: ConnectTry): void {
    const tried = this.master;
    const was = formatMaster(tried);
    // a stop (SIGTERM) closes the channel on purpose: that is not a lost master
    if (this.authed && this.stopped) this.log.info({ event: 'disconnected', master: was }, 'disconnected from the master (stopping)');
    const lost = this.authed;
    this.authed = false;
    if (this.ws === ws) this.ws = undefined;
    if (this.stopped) return;
    // a busy master is asked again (a call too) once its window has passed, not the next master
    if (t.busy !== undefined) return this.comeBackLater(was, t.busy.from, t.busy.to);
    if (this.call) return this.callEnded(tried, lost, t.answered ? undefined : t.failure);
    // whatever ended this try (lost, unreachable, key not accepted there), the next goes to the next master
    if (this.config.masters.length > 1) {
      this.current = (this.current + 1) % this.config.masters.length;
      if (lost) this.log.warn({ event: 'master_failover', from: was, to: formatMaster(this.master) }, `moving to the next master ${formatMaster(this.master)}`);
    }
    // a lost master (a restart) is met by the whole fleet: each comes back at a random moment of the welcome's window
    const spread = lost && this.reconnectWindow > 0 ? Math.random() * this.reconnectWindow * 1000 : undefined;
    const delay = spread === undefined ? this.schedule(t.retryAfter) : this.after(spread);
    if (lost) {
      const retryIn = Math.round(delay);
      this.log.warn(
        { event: 'disconnected', master: was, retry_in: retryIn, window: this.reconnectWindow },
        `lost the master ${was}; retrying in ${(retryIn / 1000).toFixed(1)} s`,
      );
    }
    // a try that never heard the master: say why at warning level, once a try (the backoff spaces them)
    if (!lost && !t.answered && !this.stopped) {
      const { reason, hint } = explainConnectFailure(t.failure, tried);
      this.log.warn(
        { event: 'master_unreachable', master: was, reason, retry_in: Math.round(delay / 100) / 10 },
        `cannot reach the master at ${was}: ${reason}. ${hint}. Retrying in ${(delay / 1000).toFixed(1)} s`,
      );
    }
  }

  /**
   * The master holds this minion's key but does not accept it: said at warning level (Salt logs
   * it as an error) with the master's address, the fingerprint the operator compares with
   * `brine key finger`, and the command that changes it.
   */
  private onKeyState(state: 'pending' | 'rejected' | 'denied', retryAfter: number): void {
    const { id } = this.config;
    const fingerprint = this.identity.fingerprint;
    const master = formatMaster(this.master);
    const hint = {
      pending: `accept it on the master with \`brine key accept ${id}\` after comparing the fingerprint with \`brine key finger ${id}\``,
      rejected: `the master refuses it until its operator deletes it (\`brine key delete ${id}\`, then this minion enrolls again) or accepts it (\`brine key accept ${id} --include-rejected\`)`,
      denied: `the master holds another key for the id ${id}: if this host is really ${id}, delete the old key on the master (\`brine key delete ${id}\`), else give this minion another id`,
    }[state];
    const said = `the master ${master} has ${state === 'pending' ? "this minion's key pending acceptance" : `${state} this minion's key`} (fingerprint ${fingerprint}): ${hint}`;
    // a call says it once, as its error, when the master closes
    if (this.call) {
      this.keyRefusal = said;
      return;
    }
    const text = `${said}. Retrying in ${retryAfter} s`;
    const fields = { event: `key_${state}`, master, retry_after: retryAfter, fingerprint };
    if (state === 'pending') this.log.warn(fields, text);
    else this.log.error(fields, text);
    this.emit(state);
  }

  /**
   * Call mode: a try ended. Before the welcome the next listed master is tried (each once); then,
   * or once the session was lost, the call fails with the cause, failing what waits on the master.
   */
  private callEnded(tried: MasterAddress, lost: boolean, failure: Error | undefined): void {
    const master = formatMaster(tried);
    let e: BrineError;
    if (lost) e = minionErrors.make('BRINE_ERR_MINION_CALL_LOST', { master });
    else if (this.keyRefusal) e = minionErrors.make('BRINE_ERR_MINION_CALL_KEY', { detail: this.keyRefusal });
    else {
      const { reason, hint } = explainConnectFailure(failure, tried);
      e = minionErrors.make('BRINE_ERR_MINION_CALL_UNREACHABLE', { master, reason, hint });
      if (this.attempt + 1 < this.config.masters.length) {
        this.attempt++;
        this.log.warn({ event: 'master_unreachable', master, reason }, e.message);
        this.current = (this.current + 1) % this.config.masters.length;
        this.connect();
        return;
      }
    }
    this.stopped = true;
    for (const id of [...this.requests.keys()]) this.settle(id)?.reject(e);
    this.emit('fatal', e);
  }

  /** A piece of an answer larger than a frame; the last one completes the request. */
  private onPart(msg: ResMsg): void {
    const req = this.requests.get(msg.ref);
    if (!req) return;
    const pieces = (req.pieces ??= []);
    const fail = (detail: string) => this.settle(msg.ref)?.reject(minionErrors.make('BRINE_ERR_MINION_ANSWER_PARTS', { op: req.op, detail }));
    if (msg.part !== pieces.length || typeof msg.data !== 'string' || msg.parts! < 1) {
      return fail(`part ${String(msg.part)} of ${String(msg.parts)} after ${pieces.length}`);
    }
    pieces.push(msg.data);
    if (pieces.length < msg.parts!) return;
    let data: unknown;
    try {
      data = JSON.parse(pieces.join(''));
    } catch (err) {
      return fail((err as Error).message);
    }
    this.settle(msg.ref)?.resolve(data);
  }

  private settle(ref: string): PendingRequest | undefined {
    const r = this.requests.get(ref);
    if (!r) return undefined;
    this.requests.delete(ref);
    clearTimeout(r.timer);
    return r;
  }

  /** The master was busy admitting others: back at a random moment of the window it booked (spread evenly, as it expects). */
  private comeBackLater(master: string, from: number, to: number): void {
    const delay = this.after((from + (to - from) * Math.random()) * 1000);
    this.log.warn(
      { event: 'master_busy', master, retry_from: from, retry_after: to, retry_in: Math.round(delay) },
      `the master ${master} is busy admitting other minions; retrying in ${(delay / 1000).toFixed(1)} s`,
    );
  }

  /** The next try in `ms`. */
  private after(ms: number): number {
    this.timer = setTimeout(() => this.connect(), ms);
    return ms;
  }

  /** Exponential backoff with full jitter, so minions do not all come back at once. */
  private schedule(fixed?: number): number {
    if (this.stopped) return 0;
    let delay: number;
    if (fixed !== undefined) {
      delay = fixed * 1000 * (this.config.recon_randomize ? 0.75 + Math.random() * 0.5 : 1);
    } else {
      const cap = Math.min(this.config.recon_max, this.config.recon_default * 2 ** this.attempt);
      this.attempt++;
      delay = cap * 1000 * (this.config.recon_randomize ? 0.5 + Math.random() * 0.5 : 1);
    }
    this.timer = setTimeout(() => this.connect(), delay);
    return delay;
  }

  private checkFingerprint(got: string): boolean {
    const file = path.join(this.config.pki_dir, 'master_finger');
    const norm = (s: string) => s.replace(/[^0-9a-f]/gi, '').toUpperCase();
    let want = this.config.master_finger;
    let source = 'master_finger in the minion config';
    if (!want && existsSync(file)) {
      want = readFileSync(file, 'utf8').trim();
      source = `recorded on first contact in ${file}`;
    }
    if (!want) {
      writeFileSync(file, got + '\n', { mode: 0o644 });
      this.log.warn({ event: 'master_finger_recorded', fingerprint: got }, 'trusting the master on first use');
      return true;
    }
    if (norm(want) === norm(got)) return true;
    const e = minionErrors.make('BRINE_ERR_MINION_MASTER_FINGER', { master: formatMaster(this.master), got, want, source, file });
    this.log.fatal({ event: 'master_finger_mismatch', code: e.code }, e.message);
    this.stopped = true;
    this.emit('fatal', e);
    return false;
  }
}
