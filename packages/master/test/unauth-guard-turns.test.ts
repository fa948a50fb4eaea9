import t from 'tap';
import { EventEmitter } from 'node:events';
import type { Server } from 'node:https';
import type { Server as NetServer, Socket } from 'node:net';
import { createLogger } from '@brine/core';
import { UnauthGuard } from '../src/unauth-guard.js';

/**
 * A storm's TLS handshakes start a few a turn of the event loop: every ClientHello of the
 * connections started in one turn is worked on in the next poll, so hundreds started at once made
 * one poll of 40-70 ms at 10,000 minions. The guard starts at most 16 a turn, the rest in the
 * turns after, until its slots are full.
 */
class FakeSocket extends EventEmitter {
  destroyed = false;
  readonly remotePort: number;
  constructor(port: number) {
    super();
    this.remotePort = port;
  }
  readonly remoteAddress = '127.0.0.1';
  destroy(): void {
    this.destroyed = true;
    this.emit('close');
  }
}

const limits = { authTimeout: 600, maxTotal: 100_000, maxPerAddress: 100_000, maxBytes: 1 << 20 };
const log = createLogger({ level: 'silent' });
const turn = () => new Promise<void>((res) => setImmediate(res));

t.test('a storm of 300 connections starts 16 TLS handshakes a turn until the 200 slots are taken', async (t) => {
  const tls = new EventEmitter();
  const acceptor = new EventEmitter();
  const guard = new UnauthGuard(tls as unknown as Server, { ...limits, maxInFlight: 200 }, log, acceptor as unknown as NetServer);
  t.teardown(() => guard.close());
  let started = 0;
  tls.on('connection', () => started++);
  const sockets = Array.from({ length: 300 }, (_, i) => new FakeSocket(10_000 + i));
  for (const s of sockets) acceptor.emit('connection', s as unknown as Socket);
  t.equal(started, 16, 'the first turn starts 16 of the 300 at once');
  t.equal(guard.stats.admission_queue, 284, 'the rest wait, their bytes unread');
  const perTurn: number[] = [];
  for (let last = started; started < 200; last = started) {
    await turn();
    perTurn.push(started - last);
  }
  t.ok(
    perTurn.every((n) => n <= 16),
    `never more than 16 a turn (${perTurn.join(', ')})`,
  );
  t.equal(started, 200, 'until the slots are full');
  await turn();
  await turn();
  t.equal(started, 200, 'then no more while every slot is held');
  // one that authenticates frees its slot: the next starts
  guard.authenticated('127.0.0.1:10000');
  t.equal(started, 201, 'a freed slot goes to the next in line');
});

t.test('a lone connection on a quiet master starts at once', async (t) => {
  const tls = new EventEmitter();
  const acceptor = new EventEmitter();
  const guard = new UnauthGuard(tls as unknown as Server, limits, log, acceptor as unknown as NetServer);
  t.teardown(() => guard.close());
  let started = 0;
  tls.on('connection', () => started++);
  acceptor.emit('connection', new FakeSocket(20_000) as unknown as Socket);
  t.equal(started, 1);
});
