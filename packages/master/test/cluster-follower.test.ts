import t, { type Test } from 'tap';
import { createLogger } from '@brine/core';
import { ClusterLink, FRESH_SECONDS, HEARTBEAT_SECONDS } from '../src/cluster.js';
import { EventBus, type BusEvent } from '../src/event-bus.js';
import type { StoreBackend, StoredEvent } from '../src/store-backend.js';

/**
 * The cluster follower's bookkeeping without PostgreSQL (cluster-link.test.ts runs it on a real
 * server): an in-memory events table where an insert takes its sequence number at once and
 * becomes visible at commit, as in PostgreSQL, and a clock the test moves (Date.now), so that
 * the 10 s wait for a gap is seen from both sides without waiting.
 */

interface Row extends StoredEvent {
  visible: boolean;
}

class MemoryEvents {
  rows: Row[] = [];
  reads: Array<{ after: number; limit: number; notFrom?: string }> = [];
  heartbeats: Array<[string, string]> = [];
  presenceAsked: number[] = [];
  presenceAnswer: Record<string, string> = {};
  cleared: string[] = [];
  failNext = 0;
  wake: (() => void) | undefined;
  unlistened = 0;
  insert(tag: string, origin: string, visible = true): Row {
    const row = { seq: this.rows.length + 1, tag, data: { tag }, origin, created_at: `at-${tag}`, visible };
    this.rows.push(row);
    return row;
  }
  store(): StoreBackend {
    const s = {
      lastEventSeq: async () => this.rows.filter((r) => r.visible).reduce((m, r) => Math.max(m, r.seq), 0),
      eventsAfter: async (after: number, limit = 1000, notFrom?: string) => {
        this.reads.push({ after, limit, notFrom });
        if (this.failNext > 0) {
          this.failNext--;
          throw new Error('connection lost');
        }
        return this.rows
          .filter((r) => r.visible && r.seq > after)
          .slice(0, limit)
          .map(({ visible: _v, ...e }) => (e.origin === notFrom ? { ...e, data: null } : e));
      },
      heartbeat: async (id: string, url: string) => void this.heartbeats.push([id, url]),
      presence: async (fresh: number) => {
        this.presenceAsked.push(fresh);
        return this.presenceAnswer;
      },
      clearPresence: async (id: string) => void this.cleared.push(id),
      listen: async (onWake: () => void) => {
        this.wake = onWake;
        return async () => void this.unlistened++;
      },
      insertEvent: async () => undefined,
    };
    return s as unknown as StoreBackend;
  }
}

let clock = 1_000_000;
const realNow = Date.now;
Date.now = () => clock;
t.teardown(() => {
  Date.now = realNow;
});

async function follower(t: Test, before: (m: MemoryEvents) => void = () => undefined) {
  const mem = new MemoryEvents();
  before(mem);
  const store = mem.store();
  const bus = new EventBus(store);
  const got: BusEvent[] = [];
  bus.subscribe('*', (e) => got.push(e));
  const link = new ClusterLink(store, bus, 'me', () => 'http://me', createLogger({ level: 'silent' }), { pollMs: 3_600_000 });
  await link.start();
  t.teardown(() => link.close());
  /** Runs one follow to its end (and any it queued). */
  const follow = async () => {
    link.follow();
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
  };
  return { mem, link, got, follow, tags: () => got.map((e) => e.tag) };
}

t.test('start: from the last stored event on; a heartbeat with the API address; listening', async (t) => {
  const { mem, tags, follow } = await follower(t, (m) => {
    m.insert('before/1', 'other');
    m.insert('before/2', 'other');
  });
  t.same(mem.heartbeats, [['me', 'http://me']]);
  t.same(mem.presenceAsked, [FRESH_SECONDS]);
  t.equal(FRESH_SECONDS, HEARTBEAT_SECONDS * 3);
  t.ok(mem.wake, 'listens for NOTIFY');
  mem.insert('after/1', 'other');
  mem.wake!();
  await follow();
  t.same(tags(), ['after/1'], 'events stored before the start are not delivered');
  t.same(mem.reads[0], { after: 2, limit: 1000, notFrom: 'me' });
});

t.test("other masters' events are delivered with their origin; this master's own are not", async (t) => {
  const { mem, got, follow } = await follower(t);
  mem.insert('a/1', 'other');
  mem.insert('own/1', 'me');
  mem.insert('b/1', 'third');
  await follow();
  t.same(
    got.map((e) => [e.tag, e.origin, e.stamp, e.data]),
    [
      ['a/1', 'other', 'at-a/1', { tag: 'a/1' }],
      ['b/1', 'third', 'at-b/1', { tag: 'b/1' }],
    ],
  );
  await follow();
  t.equal(got.length, 2, 'nothing is delivered twice');
  t.equal(mem.reads.at(-1)!.after, 3, 'the watermark passed over its own event too');
});

t.test('an event without an origin is not delivered', async (t) => {
  const { mem, got, follow } = await follower(t);
  const r = mem.insert('none', 'x');
  r.origin = null;
  await follow();
  t.same(got, []);
});

t.test('a gap in the sequence is waited for 10 s, then given up', async (t) => {
  const { mem, tags, follow } = await follower(t);
  const late = mem.insert('late', 'other', false);
  mem.insert('early', 'other');
  await follow();
  t.same(tags(), ['early'], 'what is visible is delivered at once');
  t.equal(mem.reads.at(-1)!.after, 0, 'the watermark waits below the gap');
  clock += 9_999;
  late.visible = true;
  await follow();
  t.same(tags(), ['early', 'late'], 'the late event, committed within 10 s, is delivered');
  t.equal(mem.reads.at(-1)!.after, 0);
  await follow();
  t.equal(mem.reads.at(-1)!.after, 2, 'both seen: the watermark moves over them');

  const lost = mem.insert('rolled-back', 'other', false);
  mem.insert('next', 'other');
  await follow();
  clock += 9_999;
  await follow();
  t.equal(mem.reads.at(-1)!.after, 2, 'still waiting just before 10 s');
  clock += 1;
  await follow();
  await follow();
  t.equal(mem.reads.at(-1)!.after, 4, 'after 10 s the gap is taken for a rolled-back insert');
  lost.visible = true;
  await follow();
  t.same(tags(), ['early', 'late', 'next'], 'an event given up on is not read later');
});

t.test('a gap waits from when it was first seen, not from each read', async (t) => {
  const { mem, follow } = await follower(t);
  mem.insert('gap', 'other', false);
  mem.insert('x', 'other');
  await follow();
  for (let i = 0; i < 5; i++) {
    clock += 2_000;
    await follow();
  }
  await follow();
  t.equal(mem.reads.at(-1)!.after, 2, '5 reads 2 s apart: 10 s since the gap was first seen');
});

t.test('a full page of events is followed by the next page in the same follow', async (t) => {
  const { mem, got, follow } = await follower(t);
  for (let i = 0; i < 1500; i++) mem.insert(`e/${i}`, 'other');
  await follow();
  t.equal(got.length, 1500);
  t.same(
    mem.reads.slice(-2).map((r) => r.after),
    [0, 1000],
  );
});

t.test('a follow asked for during a follow runs once more after it; a failed read is retried', async (t) => {
  const { mem, link, got, follow } = await follower(t);
  mem.insert('one', 'other');
  link.follow();
  mem.insert('two', 'other');
  link.follow();
  link.follow();
  await follow();
  t.same(
    got.map((e) => e.tag),
    ['one', 'two'],
  );
  const reads = mem.reads.length;
  mem.failNext = 1;
  mem.insert('three', 'other');
  await follow();
  t.equal(mem.reads.length, reads + 1);
  t.equal(got.length, 2, 'the failed read delivered nothing');
  await follow();
  t.equal(got.at(-1)!.tag, 'three', 'the next follow reads it');
});

t.test('presence asks the store for fresh masters; close stops listening and clears presence', async (t) => {
  const mem = new MemoryEvents();
  const store = mem.store();
  const link = new ClusterLink(store, new EventBus(store), 'me', () => 'http://me', createLogger({ level: 'silent' }));
  await link.start();
  mem.presenceAnswer = { m1: 'other' };
  t.same(await link.presence(), { m1: 'other' });
  t.same(mem.presenceAsked, [FRESH_SECONDS, FRESH_SECONDS]);
  await link.close();
  t.equal(mem.unlistened, 1);
  t.same(mem.cleared, ['me']);
});
