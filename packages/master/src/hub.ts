import { randomBytes, verify } from 'node:crypto';
import type { IncomingMessage, Server as HttpServer } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import { BrineError, toBrineError, type Grains, type Logger } from '@brine/core';
import {
  authPayload,
  encode,
  encodeRes,
  EXPORTER_LABEL,
  parseFrame,
  peekResultFrame,
  protocolErrors,
  type Body,
  type HostCallAnswer,
  type HostCallItem,
  type MasterToMinion,
  type Message,
  type ReqMsg,
  type RetMsg,
  type StateResultsMsg,
} from '@brine/protocol';
import { WebSocketServer, type WebSocket } from 'ws';
import { masterErrors } from './errors.js';
import { HostAsks } from './host-asks.js';
import type { EventBus } from './event-bus.js';
import type { KeyManager } from './keys.js';
import type { StoreBackend } from './store-backend.js';
import type { Session } from './session.js';
import { peerKey, UnauthGuard, type UnauthLimits } from './unauth-guard.js';
import { AdmissionLoad, reconnectWindow } from './admission-load.js';
import { SlicedQueue } from './fifo.js';
import { FrameInbox } from './frame-inbox.js';
import { Heartbeat, type Beating } from './heartbeat.js';
import { tlsFacts, type ChannelSocket, type MinionAcceptor } from './tls-thread.js';

export type { Session };

/** A frame encoded once, sent as text (the protocol's frames are JSON text). */
const TEXT = { binary: false } as const;

export interface HubStats {
  connections: number;
  authenticated: number;
  invalid_frames: number;
  auth_failures: number;
  frames_in: number;
  /** `running` entries of grains frames dropped: not a job that targeted that minion. */
  running_refused: number;
  /** Connections told to come back later (busy) because too many minions were being admitted. */
  busy_refused: number;
  /** Connections that resumed an earlier TLS session (no certificate signature, no key exchange of a full handshake). */
  tls_resumed: number;
}

export interface HubHandlers {
  /** A return from an authenticated minion for a job that targeted it. */
  onReturn(session: Session, ret: RetMsg): void;
  /** State results streamed during a job. */
  onStateResults?(session: Session, msg: StateResultsMsg): void;
  onGone(minion: string): void;
}

/** What the minion channel works with (the master wires it up). */
export interface HubDeps {
  keys: KeyManager;
  store: StoreBackend;
  /** This master's name in a cluster (presence rows); SQLite keeps none. */
  clusterId?: string;
  events: EventBus;
  log: Logger;
  maxFrameBytes: number;
  pingInterval: number;
  /** Seconds a minion has to answer host calls. */
  hostCallTimeout?: number;
  /** What a connection may cost before it authenticates (see UnauthGuard). */
  unauth?: Partial<UnauthLimits> & { maxFrameBytes?: number };
  /** Minions waiting to be admitted before new connections are told to come back (busy). */
  maxAdmitting?: number;
  /** What accepts for `server` (a paused TCP server, or the TLS thread): the guard admits its connections a few at a time. */
  acceptor?: MinionAcceptor;
  /** Minions a second readmitted after a restart: the welcome's reconnect window. */
  reconnectRate?: number;
}

/**
 * The minion channel. Every frame is validated; a bad one gets a coded `error` frame and is
 * counted. Until a session has authenticated only `hello` and `auth` are accepted.
 */
export class MinionHub {
  readonly wss: WebSocketServer;
  readonly sessions = new Map<string, Session>();
  /** Authenticated `brine call` sessions: beside the daemons' sessions, not in `sessions`. */
  readonly calls = new Set<Session>();
  readonly stats: HubStats = {
    connections: 0,
    authenticated: 0,
    invalid_frames: 0,
    auth_failures: 0,
    frames_in: 0,
    running_refused: 0,
    busy_refused: 0,
    tls_resumed: 0,
  };
  /** How fast minions are admitted: the windows of busy refusals and welcomes. */
  private readonly load: AdmissionLoad;
  private busyWarned = 0;
  /** Hellos and signatures, worked off in slices of the event loop (8 at a time, for a store over the network). */
  private readonly admitting = new SlicedQueue(8, 10);
  /** Every frame read, handled a slice of the event loop at a time (a fleet's returns arrive together). */
  readonly inbox = new FrameInbox<Session>(
    (session, frame) => this.received(session, frame),
    (session) => this.drop(session),
    { maxWaiting: 64, maxBytes: 32 << 20, pause: (session) => session.ws.pause(), resume: (session) => session.ws.resume() },
  );
  readonly guard: UnauthGuard;
  private heartbeat?: Heartbeat;
  handlers?: HubHandlers;
  private readonly hostAsks: HostAsks;
  /** The frame limit until a session authenticates. */
  private readonly authFrameBytes: number;
  /** Answers `req` frames (compile, files, pillar) for the session's own identity. */
  requests?: (session: Session, msg: ReqMsg) => Promise<unknown>;

  private readonly deps: HubDeps;

  constructor(server: HttpsServer | HttpServer, deps: HubDeps) {
    this.deps = deps;
    this.load = new AdmissionLoad(deps.reconnectRate ?? 0);
    this.hostAsks = new HostAsks((session, msg) => {
      if (session.ws.readyState !== session.ws.OPEN) return false;
      this.send(session, msg);
      return true;
    }, deps.hostCallTimeout ?? 60);
    // ws closes frames beyond maxPayload on its own; below that our validator answers with a code
    this.wss = new WebSocketServer({ server, path: '/ws', maxPayload: deps.maxFrameBytes * 4 });
    this.authFrameBytes = Math.min(deps.unauth?.maxFrameBytes ?? 16384, deps.maxFrameBytes);
    this.guard = new UnauthGuard(
      server,
      {
        authTimeout: deps.unauth?.authTimeout ?? 10,
        maxTotal: deps.unauth?.maxTotal ?? 1024,
        maxPerAddress: deps.unauth?.maxPerAddress ?? 256,
        // room for a hello and an auth, a few refused frames, and the WebSocket framing
        maxBytes: deps.unauth?.maxBytes ?? this.authFrameBytes * 4,
        ...(deps.maxAdmitting !== undefined ? { maxAdmitting: deps.maxAdmitting } : {}),
      },
      deps.log,
      deps.acceptor,
    );
    this.wss.on('connection', (ws, req) => this.accept(ws, req));
    if (deps.pingInterval > 0)
      this.heartbeat = new Heartbeat(
        deps.pingInterval * 1000,
        () => this.wss.clients,
        (ws) => ws.ping(),
      );
  }

  /**
   * Sends a message, or a frame already encoded: a Buffer (one job frame serves every minion, as
   * a text frame, with no conversion per socket).
   */
  send(session: Session, msg: Body<MasterToMinion> | string | Buffer): void {
    if (session.ws.readyState !== session.ws.OPEN) return;
    if (Buffer.isBuffer(msg)) session.ws.send(msg, TEXT);
    else session.ws.send(typeof msg === 'string' ? msg : encode(msg));
  }

  sendError(session: Session, code: string, message: string, ref?: string): void {
    this.send(session, ref === undefined ? { type: 'error', code, message } : { type: 'error', code, message, ref });
  }

  private accept(ws: WebSocket, req: IncomingMessage): void {
    const socket = req.socket as ChannelSocket;
    let tls;
    try {
      tls = tlsFacts(socket, EXPORTER_LABEL);
    } catch {
      ws.close(1011, 'no TLS session');
      return;
    }
    const { binding, resumed } = tls;
    // it arrived when the queue was too long: sent away before it costs more
    if (this.guard.isBusy(peerKey(req.socket.remoteAddress, req.socket.remotePort))) return this.refuseBusy(ws, req);
    if (resumed) this.stats.tls_resumed++;
    const session: Session = {
      ws,
      peer: peerKey(req.socket.remoteAddress, req.socket.remotePort),
      address: req.socket.remoteAddress ?? '',
      binding,
      running: new Set(),
      grains: {},
      started: false,
      ...(resumed ? { resumed } : {}),
    };
    this.stats.connections++;
    this.guard.watch(session.peer, socket);
    (ws as Beating).alive = true;
    ws.on('pong', () => ((ws as Beating).alive = true));
    // text frames stay Buffers: ws has checked their UTF-8, parseFrame measures and decodes them
    ws.on('message', (data) => this.inbox.push(session, data as Buffer));
    ws.on('error', (err) => {
      this.stats.invalid_frames++;
      this.deps.log.warn({ peer: session.peer, minion: session.minion, err: err.message }, 'minion socket error');
    });
    ws.on('close', () => this.inbox.close(session));
  }

  private received(session: Session, frame: Buffer): void {
    try {
      this.onFrame(session, frame);
    } catch (err) {
      this.deps.log.error({ err, minion: session.minion }, 'frame handler failed');
      this.sendError(session, 'BRINE_ERR_MASTER_INTERNAL', (err as Error).message);
    }
  }

  /** Too many minions are being admitted: this one comes back inside the window booked for it. */
  private refuseBusy(ws: WebSocket, req: IncomingMessage): void {
    const waiting = this.guard.waiting;
    const { from, to } = this.load.window(waiting);
    this.load.noteRefused();
    this.stats.busy_refused++;
    // a storm refuses thousands: one warning a minute tells the operator
    if (Date.now() - this.busyWarned > 60_000) {
      this.busyWarned = Date.now();
      const peer = peerKey(req.socket.remoteAddress, req.socket.remotePort);
      this.deps.log.warn(
        { event: 'minion_busy', peer, waiting, retry_from: from, retry_after: to, busy_refused: this.stats.busy_refused },
        `${waiting} minions wait to be admitted (max_admitting): new connections are told to retry in ${from} to ${to} s`,
      );
    }
    ws.send(encode({ type: 'busy', retry_after: to, retry_from: from }));
    ws.close(1013, 'busy: retry later');
  }

  private drop(session: Session): void {
    this.stats.connections--;
    this.hostAsks.drop(session);
    if (this.calls.delete(session)) return;
    const id = session.minion;
    if (id && this.sessions.get(id) === session) {
      this.sessions.delete(id);
      this.stats.authenticated--;
      this.remember(this.deps.store.touchMinion(id));
      if (this.deps.clusterId) this.remember(this.deps.store.setPresence(id, this.deps.clusterId, false));
      this.deps.log.info({ minion: id }, 'minion disconnected');
      this.deps.events.fire('brine/presence/change', { new: [], lost: [id] });
      this.handlers?.onGone(id);
    }
  }

  private onFrame(session: Session, raw: Buffer): void {
    this.stats.frames_in++;
    const parsed = parseFrame(raw, session.minion ? this.deps.maxFrameBytes : this.authFrameBytes);
    if (!parsed.ok) {
      this.stats.invalid_frames++;
      const { code, message } = parsed.error;
      // a refused result names its job, so the minion trims or sets aside that item and goes on
      const about = session.minion ? peekResultFrame(raw) : undefined;
      this.deps.log.warn({ peer: session.peer, minion: session.minion, code, jid: about?.jid, refused: about?.type }, message);
      this.send(session, {
        type: 'error',
        code,
        message,
        ...(parsed.ref !== undefined ? { ref: parsed.ref } : {}),
        ...(about ? { jid: about.jid, refused: about.type } : {}),
        ...(code === 'BRINE_ERR_PROTO_FRAME_TOO_LARGE' ? { limit: this.deps.maxFrameBytes } : {}),
      });
      // before authentication only small frames are heard: a large one ends the session
      if (!session.minion && code === 'BRINE_ERR_PROTO_FRAME_TOO_LARGE') session.ws.close(1009, code);
      return;
    }
    const msg = parsed.msg;
    if (!session.minion && msg.type !== 'hello' && msg.type !== 'auth' && msg.type !== 'ping') {
      this.stats.invalid_frames++;
      const e = protocolErrors.make('BRINE_ERR_PROTO_NOT_AUTHENTICATED', { type: msg.type });
      this.sendError(session, e.code, e.message, msg.id);
      session.ws.close(1008, e.code);
      return;
    }
    this.dispatch(session, msg);
  }

  private unexpected(session: Session, msg: Message): void {
    this.stats.invalid_frames++;
    const e = protocolErrors.make('BRINE_ERR_PROTO_UNEXPECTED', { type: msg.type });
    this.sendError(session, e.code, e.message, msg.id);
  }

  private dispatch(session: Session, msg: Message): void {
    switch (msg.type) {
      case 'hello':
        session.call = msg.call === true;
        return this.admitting.push(() =>
          this.onHello(session, msg.minion, msg.pub).catch((err: unknown) => {
            this.storeFailed(err);
            session.ws.close(1011, 'master store unavailable');
          }),
        );
      case 'auth':
        return this.admitting.push(async () => {
          try {
            this.onAuth(session, msg.sig, msg.id);
          } catch (err) {
            this.deps.log.error({ err, minion: session.claimed }, 'auth handler failed');
            this.sendError(session, 'BRINE_ERR_MASTER_INTERNAL', (err as Error).message);
          }
        });
      case 'grains': {
        // the authenticated id wins over whatever the minion reports as its id grain
        session.grains = { ...msg.grains, id: session.minion };
        // a call's grains are for its own compiles: the daemon's stay what targeting and the store see
        if (session.call) return;
        session.spool = msg.spool ?? 0;
        // a minion may only claim jobs that targeted it (the protocol bounds the list and its jids)
        const minion = session.minion!;
        for (const jid of msg.running) {
          void this.deps.store.isExpected(jid, minion).then(
            (ok) => (ok ? session.running.add(jid) : this.stats.running_refused++),
            (err: unknown) => this.storeFailed(err),
          );
        }
        this.remember(this.deps.store.saveGrains(minion, session.grains));
        if (!session.started) {
          session.started = true;
          this.deps.events.fire(`brine/minion/${session.minion}/start`, { id: session.minion });
        }
        return;
      }
      case 'ret':
        return this.handlers?.onReturn(session, msg);
      case 'state_results':
        return this.handlers?.onStateResults?.(session, msg);
      case 'req':
        return this.onRequest(session, msg);
      case 'host_answers':
        if (!this.hostAsks.answer(session, msg)) this.unexpected(session, msg);
        return;
      case 'ping':
        return this.send(session, msg.id === undefined ? { type: 'pong' } : { type: 'pong', id: msg.id });
      case 'pong':
        return;
      case 'error':
        if (this.hostAsks.fail(session, msg.ref, msg.code, msg.message)) return;
        this.deps.log.warn({ minion: session.minion, code: msg.code }, `minion reports: ${msg.message}`);
        return;
      default:
        return this.unexpected(session, msg);
    }
  }

  private onRequest(session: Session, msg: ReqMsg): void {
    const handler = this.requests;
    if (!handler) return this.unexpected(session, msg);
    handler(session, msg).then(
      (data) => {
        for (const frame of encodeRes(msg.id, data ?? null, this.deps.maxFrameBytes)) this.send(session, frame);
      },
      (err: unknown) => {
        const e = toBrineError(err);
        if (e.code === 'BRINE_ERR_CORE_INTERNAL') this.deps.log.error({ err, minion: session.minion, op: msg.op }, 'request failed');
        this.sendError(session, e.code, e.message, msg.id);
      },
    );
  }

  /** A store write nothing waits on (last seen, grains): a failure is logged, never thrown. */
  private remember(write: Promise<unknown>): void {
    write.catch((err: unknown) => this.storeFailed(err));
  }

  private storeFailed(err: unknown): void {
    this.deps.log.error({ event: 'store_failed', err: (err as Error).message }, 'master store call failed');
  }

  private async onHello(session: Session, minion: string, pub: string): Promise<void> {
    if (session.claimed || session.minion) return this.unexpected(session, { v: 1, type: 'hello', minion, pub, version: '' });
    let admission;
    try {
      admission = await this.deps.keys.admit(minion, pub, session.address);
    } catch (err) {
      if (!(err instanceof BrineError)) throw err;
      this.stats.auth_failures++;
      this.deps.log.warn({ minion, peer: session.peer, code: err.code }, err.message);
      this.sendError(session, err.code, err.message);
      session.ws.close(1008, err.code);
      return;
    }
    // an accepted key is said once, as 'minion authenticated': a fleet's restart logs one line a minion
    const hello = { minion, peer: session.peer, key: admission.state };
    if (admission.state === 'accepted') this.deps.log.debug(hello, 'minion hello');
    else this.deps.log.info(hello, 'minion hello');
    if (admission.state !== 'accepted') {
      if (admission.state === 'pending') {
        this.send(session, { type: 'key_state', state: 'pending' });
      } else {
        this.stats.auth_failures++;
        this.send(session, { type: 'key_state', state: admission.state });
      }
      session.ws.close(1000, `key ${admission.state}`);
      return;
    }
    session.claimed = minion;
    session.key = admission.key;
    session.nonce = randomBytes(32).toString('base64');
    this.send(session, { type: 'challenge', nonce: session.nonce });
  }

  private onAuth(session: Session, sig: string, ref?: string): void {
    if (!session.claimed || !session.key || !session.nonce || session.minion) {
      return this.unexpected(session, { v: 1, type: 'auth', sig });
    }
    const minion = session.claimed;
    const payload = authPayload(minion, session.nonce, session.binding);
    // the nonce is single-use: a failed attempt has to start over with a new hello
    session.nonce = undefined;
    let good = false;
    try {
      good = verify(null, payload, session.key, Buffer.from(sig, 'base64'));
    } catch {
      good = false;
    }
    if (!good) {
      this.stats.auth_failures++;
      const e = masterErrors.make('BRINE_ERR_MASTER_AUTH_FAILED', { minion });
      this.deps.log.warn({ minion, peer: session.peer }, e.message);
      this.deps.events.fire('brine/auth', { id: minion, act: 'auth_failed' });
      this.sendError(session, e.code, e.message, ref);
      session.ws.close(1008, e.code);
      return;
    }
    if (session.call) return this.welcomeCall(session, minion);
    const previous = this.sessions.get(minion);
    if (previous && previous !== session) {
      // the newest authenticated connection wins; the old one is stale (network change, restart)
      previous.minion = undefined;
      previous.ws.close(1000, 'replaced by a new session');
      this.stats.authenticated--;
    }
    session.minion = minion;
    // needed only to authenticate: 10,000 sessions keep no key objects or channel bindings
    session.key = undefined;
    session.binding = '';
    this.guard.authenticated(session.peer);
    this.sessions.set(minion, session);
    this.stats.authenticated++;
    this.load.noteAdmitted();
    this.deps.log.info({ minion, peer: session.peer, resumed: session.resumed === true }, 'minion authenticated');
    const window = reconnectWindow(this.sessions.size, this.deps.reconnectRate ?? 0);
    this.send(session, { type: 'welcome', minion, max_frame_bytes: this.deps.maxFrameBytes, ...(window > 0 ? { reconnect_window: window } : {}) });
    if (this.deps.clusterId) this.remember(this.deps.store.setPresence(minion, this.deps.clusterId, true));
    this.deps.events.fire('brine/presence/change', { new: [minion], lost: [] });
  }

  /**
   * A `brine call` of an accepted minion: answered for that identity like its daemon, but held
   * beside the daemon's session (which stays connected and keeps getting the jobs), so a call
   * run while the daemon is up replaces nothing and fires no presence change.
   */
  private welcomeCall(session: Session, minion: string): void {
    session.minion = minion;
    this.guard.authenticated(session.peer);
    this.calls.add(session);
    this.deps.log.info({ minion, peer: session.peer, call: true }, 'minion authenticated for brine call');
    this.send(session, { type: 'welcome', minion, max_frame_bytes: this.deps.maxFrameBytes });
  }

  /**
   * Asks a minion's host the calls its templates made (one round trip); rejects with a coded
   * error when the minion is not connected, refuses or does not answer in time.
   */
  askHost(minion: string | Session, calls: HostCallItem[], jid?: string): Promise<HostCallAnswer[]> {
    const session = typeof minion === 'string' ? this.sessions.get(minion) : minion;
    const live = session?.minion !== undefined && (this.sessions.get(session.minion) === session || this.calls.has(session));
    if (!session || !live) {
      const id = typeof minion === 'string' ? minion : (minion.minion ?? minion.claimed ?? '');
      return Promise.reject(masterErrors.make('BRINE_ERR_MASTER_HOST_GONE', { minion: id }));
    }
    return this.hostAsks.ask(session, calls, jid);
  }

  /** A minion's grains: those of its live session, else the last stored, else just its id. */
  async grainsOf(id: string): Promise<Grains> {
    const live = this.sessions.get(id)?.grains;
    if (live && Object.keys(live).length) return live;
    return ((await this.deps.store.grainsOf(id)) as Grains | undefined) ?? { id };
  }

  /** Closes the session of a minion whose key was rejected or deleted. */
  disconnect(minion: string): void {
    this.sessions.get(minion)?.ws.close(1008, 'key no longer accepted');
    for (const s of this.calls) if (s.minion === minion) s.ws.close(1008, 'key no longer accepted');
  }

  close(): void {
    this.heartbeat?.close();
    this.guard.close();
    for (const ws of this.wss.clients) ws.terminate();
    this.wss.close();
  }
}
