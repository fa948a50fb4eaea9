import type { WebSocket } from 'ws';

/** A socket the heartbeat watches: whether it answered the last ping. */
export type Beating = WebSocket & { alive?: boolean };

/** Sockets pinged per turn of the event loop (each ping is a TLS write: 10,000 in one turn held the loop). */
const PINGS_PER_TURN = 200;

/**
 * WebSocket pings to every connected socket each `intervalMs`; one that did not answer the last
 * is terminated; a slice of sockets a turn.
 */
export class Heartbeat {
  private readonly timer: NodeJS.Timeout;
  private slicing: NodeJS.Immediate | undefined;
  private readonly clients: () => Iterable<WebSocket>;
  private readonly ping: (ws: Beating) => void;

  constructor(intervalMs: number, clients: () => Iterable<WebSocket>, ping: (ws: Beating) => void) {
    this.clients = clients;
    this.ping = ping;
    this.timer = setInterval(() => this.beat(), intervalMs);
    this.timer.unref();
  }

  private beat(): void {
    if (this.slicing) return;
    this.slice([...this.clients()] as Beating[], 0);
  }

  private slice(list: Beating[], from: number): void {
    const end = Math.min(list.length, from + PINGS_PER_TURN);
    for (let i = from; i < end; i++) {
      const ws = list[i]!;
      // one closed since the beat began: ws makes its ping and termination no-ops
      if (ws.alive === false) ws.terminate();
      else {
        ws.alive = false;
        this.ping(ws);
      }
    }
    if (end < list.length)
      this.slicing = setImmediate(() => {
        this.slicing = undefined;
        this.slice(list, end);
      });
  }

  close(): void {
    clearInterval(this.timer);
    if (this.slicing) clearImmediate(this.slicing);
    this.slicing = undefined;
  }
}
