import type { EventEmitter } from 'node:events';
import type { Logger } from '@brine/core';
import { Fifo } from './fifo.js';
import { plainAddress } from './plain-address.js';
import { TlsThread, type ChannelSocket, type MinionAcceptor } from './tls-thread.js';

export interface UnauthLimits {
  /** Seconds a connection has to authenticate before it is closed. */
  authTimeout: number;
  /** Unauthenticated connections held at once, from everywhere. */
  maxTotal: number;
  /** Unauthenticated connections held at once from one source address. */
  maxPerAddress: number;
  /** Bytes a connection may send (TLS handshake, upgrade, frames) before it authenticates. */
  maxBytes: number;
  /**
   * Connections admitted at once (TLS handshake, upgrade, hello, signature) when the guard
   * accepts for the TLS server; the rest wait their turn, their bytes unread.
   */
  maxInFlight?: number;
  /** Connections being admitted (queued or under way) beyond which new ones are admitted only to be told busy. */
  maxAdmitting?: number;
}

export interface UnauthStats {
  unauthenticated: number;
  unauth_refused: number;
  auth_timeouts: number;
  unauth_too_much_data: number;
  /** Accepted connections waiting for their turn to be admitted (their TLS not started). */
  admission_queue: number;
}

interface Pending {
  socket: ChannelSocket;
  address: string;
  timer: NodeJS.Timeout;
  /** The decrypted stream being counted, once the WebSocket is up. */
  watched?: { socket: ChannelSocket; onData: (chunk: Buffer) => void };
  /** When it was given one of the slots (held until it authenticates or closes, 1 s at most). */
  slotted?: number;
  /** Admitted only to be told to come back later: the queue was too long when it arrived. */
  busy?: boolean;
}

/**
 * Connections admitted at once (TLS handshake to signature): enough to keep a core busy across
 * the round trips of each handshake, few enough that the work ready in one turn of the event
 * loop stays short. With 10,000 minions (bench/swarm.mjs --storm) 256 held returning minions
 * back: 63 s until all were in again, 20 s with 512 (the reconnect window) and 1024, which let
 * the first connect's work pile up (1.3 s blocks, handshake timeouts).
 */
const ADMITTING_AT_ONCE = 512;

/**
 * TLS handshakes started in one turn of the event loop. A started connection's ClientHello is
 * worked on (key exchange, the certificate's signature: 0.5-1 ms of the master's CPU on a slow
 * core) in the next poll of the loop, all of them in that one poll: with the slots free, a storm
 * started hundreds at once and a poll took 40-70 ms (perf of bench/swarm.mjs 10000). A turn
 * starts at most this many; the rest start in the turns after.
 */
const STARTS_PER_TURN = 16;

/** How long a connection holds an admission slot at most (a handshake that stalls lets the next go). */
const SLOT_HOLD_MS = 1000;

/** The key of a connection on both its TCP and its TLS socket (the TLS one proxies the TCP one). */
export function peerKey(address: string | undefined, port: number | undefined): string {
  return `${address ?? ''}:${port ?? ''}`;
}

/**
 * Holds every TCP connection of the minion channel to a budget until it authenticates: a
 * deadline, a byte budget and caps on how many may wait at once (in total and per source
 * address). A connection over a cap is closed on arrival, before TLS costs anything, so an
 * idle flood can neither exhaust the file descriptors nor make the master buffer frames.
 */
export class UnauthGuard {
  private readonly pending = new Map<string, Pending>();
  private readonly perAddress = new Map<string, number>();
  readonly stats: UnauthStats = { unauthenticated: 0, unauth_refused: 0, auth_timeouts: 0, unauth_too_much_data: 0, admission_queue: 0 };
  /** Connections waiting for a slot: those to admit, and (first served) those to tell busy. */
  private readonly queue = new Fifo<Pending>();
  private readonly busyQueue = new Fifo<Pending>();
  private inFlight = 0;
  /** TLS handshakes started in this turn of the event loop, reset (and the queue pumped) in its check phase. */
  private startedThisTurn = 0;
  private nextTurn?: NodeJS.Immediate;
  /** Slotted connections in the order they were slotted: the oldest stall is let go first. */
  private readonly slots = new Fifo<Pending>();
  private sweep?: NodeJS.Timeout;
  /** Hands a connection to the TLS server; without an acceptor the server took it itself. */
  private readonly start?: (socket: ChannelSocket) => void;
  /** One warning per kind per minute is enough to tell an operator a flood is on. */
  private readonly warned = new Map<string, number>();

  private readonly limits: UnauthLimits;
  private readonly log: Logger;
  /**
   * With an `acceptor` (a plain TCP server listening with pauseOnConnect, or the TLS thread) the
   * guard admits connections to `server` a bounded number at a time: a storm of thousands waits
   * with its bytes unread instead of every handshake (or, from the thread, every upgrade and
   * authentication) being worked on in the same turn of the event loop. Without one, it only
   * watches what the TLS server accepts.
   */
  constructor(server: EventEmitter, limits: UnauthLimits, log: Logger, acceptor?: MinionAcceptor) {
    this.limits = limits;
    this.log = log;
    if (acceptor) {
      this.start = (socket) => server.emit('connection', socket);
      acceptor.on('connection', (socket: ChannelSocket) => this.admit(socket));
      if (acceptor instanceof TlsThread) {
        acceptor.on('refused', (address: string) => this.refused(address));
        acceptor.on('timeout', (address: string) => this.timedOut(address));
      }
      // a slot held by a stalled handshake is let go after a while, so a few idle connections cannot hold the door
      this.sweep = setInterval(() => this.pump(), SLOT_HOLD_MS / 2);
      this.sweep.unref();
    } else server.on('connection', (socket: ChannelSocket) => this.admit(socket));
  }

  /** Connections waiting for their turn (the queue a new one joins). */
  get waiting(): number {
    return this.queue.length + this.busyQueue.length;
  }

  /** The connection was admitted only to be told to come back later. */
  isBusy(key: string): boolean {
    return this.pending.get(key)?.busy === true;
  }

  private warn(kind: string, fields: Record<string, unknown>, message: string): void {
    const now = Date.now();
    if ((this.warned.get(kind) ?? 0) > now - 60_000) return;
    this.warned.set(kind, now);
    this.log.warn({ event: kind, ...fields, ...this.stats }, message);
  }

  private refused(address: string): void {
    this.stats.unauth_refused++;
    this.warn('unauth_refused', { address }, 'too many unauthenticated connections: refusing new ones');
  }

  private timedOut(address: string): void {
    this.stats.auth_timeouts++;
    this.warn('auth_timeout', { address }, `a connection did not authenticate within ${this.limits.authTimeout} s (auth_timeout): closed`);
  }

  private admit(socket: ChannelSocket): void {
    const key = peerKey(socket.remoteAddress, socket.remotePort);
    const address = plainAddress(socket.remoteAddress);
    const fromHere = this.perAddress.get(address) ?? 0;
    if (this.pending.size >= this.limits.maxTotal || fromHere >= this.limits.maxPerAddress) {
      this.refused(address);
      socket.destroy();
      return;
    }
    const timer = setTimeout(() => {
      this.timedOut(address);
      socket.destroy();
    }, this.limits.authTimeout * 1000);
    timer.unref();
    socket.once('close', () => this.release(key));
    const p: Pending = { socket, address, timer };
    this.pending.set(key, p);
    this.perAddress.set(address, fromHere + 1);
    this.stats.unauthenticated = this.pending.size;
    if (!this.start) return;
    // more being admitted than max_admitting (this one counted) would outlast the minions' timeouts: the newcomer is told busy, first
    if (this.pending.size > (this.limits.maxAdmitting ?? Infinity)) {
      p.busy = true;
      this.busyQueue.push(p);
    } else this.queue.push(p);
    this.pump();
  }

  /** Starts waiting connections while slots are free (busy ones first: they are quick). */
  private pump(): void {
    const max = this.limits.maxInFlight ?? ADMITTING_AT_ONCE;
    const stale = Date.now() - SLOT_HOLD_MS;
    for (let p = this.slots.peek(); p && (p.slotted === undefined || p.slotted < stale); p = this.slots.peek()) {
      this.unslot(p, false);
      this.slots.shift();
    }
    while (this.inFlight < max && this.startedThisTurn < STARTS_PER_TURN) {
      const p = this.busyQueue.shift() ?? this.queue.shift();
      if (!p) break;
      if (p.socket.destroyed) continue;
      p.slotted = Date.now();
      this.slots.push(p);
      this.inFlight++;
      this.startedThisTurn++;
      this.nextTurn ??= setImmediate(() => {
        this.nextTurn = undefined;
        this.startedThisTurn = 0;
        this.pump();
      });
      this.start!(p.socket);
    }
    this.stats.admission_queue = this.waiting;
  }

  /** It authenticated (or closed, or stalled): its slot goes to the next in line. */
  private unslot(p: Pending | undefined, pump = true): void {
    if (p?.slotted === undefined) return;
    p.slotted = undefined;
    this.inFlight--;
    if (pump) this.pump();
  }

  /**
   * Counts what the WebSocket of a waiting connection receives (TLS hands the TCP socket's
   * bytes to its own socket; the upgrade request is bounded by the HTTP server). Over the budget
   * the connection is closed before ws buffers more of a frame.
   */
  watch(key: string, tlsSocket: ChannelSocket): void {
    const p = this.pending.get(key);
    if (!p) return;
    let bytes = 0;
    const onData = (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > this.limits.maxBytes) {
        this.stats.unauth_too_much_data++;
        this.warn('unauth_too_much_data', { address: p.address, bytes }, 'an unauthenticated connection sent more than its budget: closed');
        tlsSocket.destroy();
        p.socket.destroy();
      }
    };
    // ahead of ws's own listener, so an oversized first chunk is counted before it is parsed
    tlsSocket.prependListener('data', onData);
    p.watched = { socket: tlsSocket, onData };
  }

  /** The connection authenticated: it leaves the budget. */
  authenticated(key: string): void {
    this.release(key);
  }

  private release(key: string): void {
    const p = this.pending.get(key);
    if (!p) return;
    clearTimeout(p.timer);
    p.watched?.socket.off('data', p.watched.onData);
    this.pending.delete(key);
    this.unslot(p);
    const n = (this.perAddress.get(p.address) ?? 1) - 1;
    if (n > 0) this.perAddress.set(p.address, n);
    else this.perAddress.delete(p.address);
    this.stats.unauthenticated = this.pending.size;
  }

  /** The master stops: what still waits to authenticate (queued or under way) is closed. */
  close(): void {
    if (this.sweep) clearInterval(this.sweep);
    if (this.nextTurn) clearImmediate(this.nextTurn);
    for (const p of [...this.pending.values()]) {
      clearTimeout(p.timer);
      p.socket.destroy();
    }
  }
}
