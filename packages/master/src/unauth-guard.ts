import type { Server } from 'node:https';
import type { Socket } from 'node:net';
import type { Logger } from '@brine/core';

export interface UnauthLimits {
  /** Seconds a connection has to authenticate before it is closed. */
  authTimeout: number;
  /** Unauthenticated connections held at once, from everywhere. */
  maxTotal: number;
  /** Unauthenticated connections held at once from one source address. */
  maxPerAddress: number;
  /** Bytes a connection may send (TLS handshake, upgrade, frames) before it authenticates. */
  maxBytes: number;
}

export interface UnauthStats {
  unauthenticated: number;
  unauth_refused: number;
  auth_timeouts: number;
  unauth_too_much_data: number;
}

interface Pending {
  socket: Socket;
  address: string;
  timer: NodeJS.Timeout;
  /** The decrypted stream being counted, once the WebSocket is up. */
  watched?: { socket: Socket; onData: (chunk: Buffer) => void };
}

/** The key of a connection on both its TCP and its TLS socket (the TLS one proxies the TCP one). */
export function peerKey(address: string | undefined, port: number | undefined): string {
  return `${address ?? ''}:${port ?? ''}`;
}

function plainAddress(address: string | undefined): string {
  const a = address ?? '';
  return a.startsWith('::ffff:') ? a.slice(7) : a;
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
  readonly stats: UnauthStats = { unauthenticated: 0, unauth_refused: 0, auth_timeouts: 0, unauth_too_much_data: 0 };
  /** One warning per kind per minute is enough to tell an operator a flood is on. */
  private readonly warned = new Map<string, number>();

  private readonly limits: UnauthLimits;
  private readonly log: Logger;
  constructor(server: Server, limits: UnauthLimits, log: Logger) {
    this.limits = limits;
    this.log = log;
    server.on('connection', (socket: Socket) => this.admit(socket));
  }

  private warn(kind: string, fields: Record<string, unknown>, message: string): void {
    const now = Date.now();
    if ((this.warned.get(kind) ?? 0) > now - 60_000) return;
    this.warned.set(kind, now);
    this.log.warn({ event: kind, ...fields, ...this.stats }, message);
  }

  private admit(socket: Socket): void {
    const key = peerKey(socket.remoteAddress, socket.remotePort);
    const address = plainAddress(socket.remoteAddress);
    const fromHere = this.perAddress.get(address) ?? 0;
    if (this.pending.size >= this.limits.maxTotal || fromHere >= this.limits.maxPerAddress) {
      this.stats.unauth_refused++;
      this.warn('unauth_refused', { address }, 'too many unauthenticated connections: refusing new ones');
      socket.destroy();
      return;
    }
    const timer = setTimeout(() => {
      this.stats.auth_timeouts++;
      this.warn('auth_timeout', { address }, `a connection did not authenticate within ${this.limits.authTimeout} s (auth_timeout): closed`);
      socket.destroy();
    }, this.limits.authTimeout * 1000);
    timer.unref();
    socket.once('close', () => this.release(key));
    this.pending.set(key, { socket, address, timer });
    this.perAddress.set(address, fromHere + 1);
    this.stats.unauthenticated = this.pending.size;
  }

  /**
   * Counts what the WebSocket of a waiting connection receives (TLS hands the TCP socket's
   * bytes to its own socket; the upgrade request is bounded by the HTTP server). Over the budget
   * the connection is closed before ws buffers more of a frame.
   */
  watch(key: string, tlsSocket: Socket): void {
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
    const n = (this.perAddress.get(p.address) ?? 1) - 1;
    if (n > 0) this.perAddress.set(p.address, n);
    else this.perAddress.delete(p.address);
    this.stats.unauthenticated = this.pending.size;
  }

  close(): void {
    for (const p of this.pending.values()) clearTimeout(p.timer);
  }
}
