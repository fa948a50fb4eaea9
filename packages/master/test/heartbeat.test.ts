import t from 'tap';
import type { WebSocket } from 'ws';
import { Heartbeat, type Beating } from '../src/heartbeat.js';

/**
 * The heartbeat pings every socket, a slice a turn: each ping is a TLS write, and 10,000 of them
 * in one turn held the master's event loop. A socket that missed the previous ping is cut off.
 */
class Sock {
  readonly OPEN = 1;
  readyState = 1;
  alive?: boolean;
  terminated = false;
  terminate(): void {
    this.terminated = true;
  }
}

t.test('a beat pings 200 sockets a turn, every socket once, and cuts off one that did not answer', async (t) => {
  const socks = Array.from({ length: 450 }, () => new Sock());
  socks[7]!.alive = false;
  const pinged: Sock[] = [];
  let firstTurn = -1;
  // the heartbeat's timer does not hold the process open (a master's does)
  const keep = setInterval(() => undefined, 1000);
  t.teardown(() => clearInterval(keep));
  const done = new Promise<void>((resolve) => {
    const beat = new Heartbeat(
      5,
      () => socks as unknown as WebSocket[],
      (ws: Beating) => {
        // queued in the first slice, before the heartbeat queues its next one: runs between them
        if (pinged.length === 0) setImmediate(() => (firstTurn = pinged.length));
        pinged.push(ws as unknown as Sock);
        if (pinged.length === 449) {
          beat.close();
          resolve();
        }
      },
    );
  });
  await done;
  t.equal(firstTurn, 199, 'the first turn saw 200 sockets: pinged 199, cut one off');
  t.equal(new Set(pinged).size, 449, 'every other socket pinged once');
  t.ok(socks[7]!.terminated, 'the silent one was terminated');
  t.notOk(pinged.includes(socks[7]!), 'and not pinged');
  t.ok(
    pinged.every((s) => s.alive === false),
    'each pinged socket waits for its pong',
  );
});
