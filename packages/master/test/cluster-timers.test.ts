// The cluster follower's wiring (cluster-follower.test.ts covers its bookkeeping): what wakes it
// (NOTIFY, the poll, the heartbeat timer), when a paging follow stops, what it logs on failure,
// and that close() clears its timers and waits for a follow under way. The timers are recorded by
// wrapping setInterval, and fired by hand: no waiting on the clock.
import { hostname } from 'node:os';
import t, { type Test } from 'tap';
import type { Logger } from '@brine/core';
import { ClusterLink, defaultClusterId, FRESH_SECONDS, HEARTBEAT_SECONDS } from '../src/cluster.js';
import { EventBus, type BusEvent } from '../src/event-bus.js';
import type { StoreBackend, StoredEvent } from '../src/store-backend.js';

interface Row extends StoredEvent {
  visible: boolean;
}

class MemoryStore {
  rows: Row[] = [];
  reads: number[] = [];
  heartbeats = 0;
  presenceAsked = 0;
  failHeartbeat = false;
  failClear = false;
  cleared = 0;
  wake: (() => void) | undefined;
  onError: ((err: Error) => void) | undefined;
  /** Holds the next read until released (to see close() wait for it). */
  hold: Promise<void> | undefined;
  insert(tag: string, origin: string, visible = true): Row {
    const row = { seq: this.rows.length + 1, tag, data: { tag }, origin, created_at: 'now', visible };
    this.rows.push(row);
    return row;
  }
  store(): StoreBackend {
    const s = {
      lastEventSeq: async () => 0,
      eventsAfter: async (after: number, limit = 1000) => {
        this.reads.push(after);
        if (this.hold) await this.hold;
        return this.rows
          .filter((r) => r.visible && r.seq > after)
          .slice(0, limit)
          .map(({ visible: _v, ...e }) => e);
      },
      heartbeat: async () => {
        this.heartbeats++;
        if (this.failHeartbeat) throw new Error('store down');
      },
      presence: async () => {
        this.presenceAsked++;
        return {};
      },
      clearPresence: async () => {
        this.cleared++;
        if (this.failClear) throw new Error('store down');
      },
      listen: async (onWake: () => void, onError: (err: Error) => void) => {
        this.wake = onWake;
        this.onError = onError;
        return async () => undefined;
      },
      insertEvent: async () => undefined,
    };
    return s as unknown as StoreBackend;
  }
}

interface Timer {
  fn: () => void;
  ms: number;
  handle: NodeJS.Timeout;
  unref: boolean;
}

const timers: Timer[] = [];
const cleared: unknown[] = [];
const realSet = globalThis.setInterval;
const realClear = globalThis.clearInterval;
globalThis.setInterval = ((fn: () => void, ms: number) => {
  const handle = realSet(() => undefined, 3_600_000);
  const rec: Timer = { fn, ms, handle, unref: false };
  const unref = handle.unref.bind(handle);
  handle.unref = () => {
    rec.unref = true;
    return unref();
  };
  timers.push(rec);
  return handle;
}) as typeof setInterval;
globalThis.clearInterval = ((h: NodeJS.Timeout) => {
  cleared.push(h);
  realClear(h);
}) as typeof clearInterval;
t.teardown(() => {
  globalThis.setInterval = realSet;
  globalThis.clearInterval = realClear;
  for (const x of timers) realClear(x.handle);
});

const settle = async () => {
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
};

async function follower(t: Test, pollMs?: number) {
  const mem = new MemoryStore();
  const store = mem.store();
  const bus = new EventBus(store);
  const got: BusEvent[] = [];
  bus.subscribe('*', (e) => got.push(e));
  const warns: Array<{ fields: Record<string, unknown>; msg: string }> = [];
  const log = {
    warn: (fields: Record<string, unknown>, msg: string) => warns.push({ fields, msg }),
    info: () => undefined,
    debug: () => undefined,
    error: () => undefined,
  } as unknown as Logger;
  const before = timers.length;
  const link = new ClusterLink(store, bus, 'me', () => 'http://me', log, pollMs === undefined ? {} : { pollMs });
  await link.start();
  const mine = timers.slice(before);
  t.teardown(() => link.close());
  return { mem, link, got, warns, mine };
}

t.test('the heartbeat and the poll run on unref-ed timers; close() clears them', async (t) => {
  const { mem, link, got, mine } = await follower(t, 250);
  t.same(
    mine.map((x) => x.ms),
    [HEARTBEAT_SECONDS * 1000, 250],
  );
  t.ok(
    mine.every((x) => x.unref),
    'neither keeps the process alive',
  );
  const [beat, poll] = mine;
  t.equal(mem.heartbeats, 1, 'one heartbeat at start');
  beat!.fn();
  await settle();
  t.equal(mem.heartbeats, 2, 'the heartbeat timer beats');
  t.equal(mem.presenceAsked, 2, 'and refreshes presence');
  mem.insert('a', 'other');
  poll!.fn();
  await settle();
  t.same(
    got.map((e) => e.tag),
    ['a'],
    'the poll follows',
  );
  await link.close();
  t.ok(cleared.includes(beat!.handle), 'the heartbeat timer is cleared');
  t.ok(cleared.includes(poll!.handle), 'the poll timer is cleared');
  t.equal(mem.cleared, 1, 'presence cleared');
});

t.test('the poll is every second unless told otherwise', async (t) => {
  const { mine } = await follower(t);
  t.equal(mine[1]!.ms, 1000);
});

t.test('NOTIFY wakes the follower', async (t) => {
  const { mem, got } = await follower(t);
  mem.insert('n', 'other');
  mem.wake!();
  await settle();
  t.same(
    got.map((e) => e.tag),
    ['n'],
  );
});

t.test('a lost listener and a failed heartbeat are logged, not thrown', async (t) => {
  const { mem, mine, warns } = await follower(t);
  mem.onError!(new Error('socket closed'));
  t.same(warns[0], { fields: { event: 'cluster_listen_failed', err: 'socket closed' }, msg: 'cluster: lost the event listener; reconnecting' });
  mem.failHeartbeat = true;
  mine[0]!.fn();
  await settle();
  t.same(warns[1], { fields: { event: 'cluster_heartbeat_failed', err: 'store down' }, msg: 'cluster: heartbeat failed' });
});

t.test('a failed read is logged', async (t) => {
  const { mem, link, warns } = await follower(t);
  mem.hold = Promise.reject(new Error('connection lost'));
  mem.hold.catch(() => undefined);
  link.follow();
  await settle();
  t.same(warns, [{ fields: { event: 'cluster_follow_failed', err: 'connection lost' }, msg: 'cluster: reading events failed; retrying' }]);
});

t.test('paging stops at a short page, and at a full page that does not move the watermark', async (t) => {
  const { mem, link, got } = await follower(t);
  for (let i = 0; i < 1000; i++) mem.insert(`e/${i}`, 'other');
  link.follow();
  await settle();
  t.equal(got.length, 1000);
  t.same(mem.reads, [0, 1000], 'a full page is followed by one more read, which comes back short');

  // a gap below a full page: the watermark stays, so the same page would come back forever
  const g = await follower(t);
  g.mem.insert('gap', 'other', false);
  for (let i = 0; i < 1000; i++) g.mem.insert(`f/${i}`, 'other');
  g.link.follow();
  await settle();
  t.equal(g.got.length, 1000);
  t.same(g.mem.reads, [0], 'one read: the watermark did not move');
});

t.test('close() waits for a follow under way, and a failing presence clear does not throw', async (t) => {
  const { mem, link, got } = await follower(t);
  let release!: () => void;
  mem.hold = new Promise((r) => (release = r));
  mem.insert('late', 'other');
  mem.failClear = true;
  link.follow();
  await settle();
  let closed = false;
  const closing = link.close().then(() => (closed = true));
  await settle();
  t.equal(closed, false, 'close waits for the read');
  release();
  await closing;
  t.same(
    got.map((e) => e.tag),
    ['late'],
  );
  t.equal(mem.cleared, 1);
});

t.test('the freshness window is three heartbeats', async (t) => {
  t.equal(HEARTBEAT_SECONDS, 2);
  t.equal(FRESH_SECONDS, 6);
});

t.test('a master is host/pid in the cluster', async (t) => {
  t.equal(defaultClusterId(), `${hostname()}/${process.pid}`);
});

t.test('close() of a link never started does not throw', async (t) => {
  const mem = new MemoryStore();
  const store = mem.store();
  const link = new ClusterLink(store, new EventBus(store), 'me', () => 'http://me', {} as Logger);
  await link.close();
  t.equal(mem.cleared, 1);
});

t.test('gaps filled or given up on are forgotten (a long-running master does not grow)', async (t) => {
  let clock = 1_000_000;
  const realNow = Date.now;
  Date.now = () => clock;
  t.teardown(() => {
    Date.now = realNow;
  });
  const { mem, link } = await follower(t);
  const gapsOf = () => (link as unknown as { gapSince: Map<number, number> }).gapSince.size;
  const late = mem.insert('late', 'other', false);
  mem.insert('x', 'other');
  link.follow();
  await settle();
  t.equal(gapsOf(), 1, 'one gap waited for');
  late.visible = true;
  link.follow();
  await settle();
  t.equal(gapsOf(), 0, 'filled: forgotten');
  mem.insert('lost', 'other', false);
  mem.insert('y', 'other');
  link.follow();
  await settle();
  t.equal(gapsOf(), 1);
  clock += 10_000;
  link.follow();
  await settle();
  t.equal(gapsOf(), 0, 'given up on: forgotten');
});
