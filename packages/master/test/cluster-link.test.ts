import t, { type Test } from 'tap';
import pg from 'pg';
import { createLogger } from '@brine/core';
import { startPostgres, type PostgresServer } from '../../../test/support/postgres.js';
import { ClusterLink } from '../src/cluster.js';
import { EventBus, type BusEvent } from '../src/event-bus.js';
import { PgStore, withPassword } from '../src/store-pg.js';

/**
 * The cluster follower and presence on a real PostgreSQL server: two stores on one database
 * stand for two masters ('a' writes, 'b' follows). The follower's fallback poll is set to an
 * hour, so whatever reaches 'b' came through NOTIFY.
 */
const log = createLogger({ level: 'silent' });
const HOUR = 3_600_000;
let server: PostgresServer;
let dbs = 0;
t.before(async () => {
  server = await startPostgres();
});
t.teardown(() => server.stop());

interface Pair {
  url: string;
  a: PgStore;
  b: PgStore;
  link: ClusterLink;
  /** Events delivered to b's bus, in order. */
  got: BusEvent[];
  /** Resolves when b's bus has delivered an event with this tag. */
  arrived(tag: string): Promise<void>;
}

async function pair(t: Test): Promise<Pair> {
  const name = `brine_link${++dbs}`;
  await server.createDatabase(name);
  const url = server.url(name);
  const a = await PgStore.open(url, server.password);
  const b = await PgStore.open(url, server.password);
  a.origin = 'a';
  b.origin = 'b';
  const bus = new EventBus(b);
  const link = new ClusterLink(b, bus, 'b', () => 'http://b', log, { pollMs: HOUR });
  const got: BusEvent[] = [];
  const waiters: Array<{ tag: string; resolve: () => void }> = [];
  bus.subscribe('*', (ev) => {
    got.push(ev);
    for (const w of waiters.filter((w) => w.tag === ev.tag)) w.resolve();
  });
  await link.start();
  t.teardown(async () => {
    await link.close();
    await a.close();
    await b.close();
  });
  const arrived = (tag: string) =>
    got.some((e) => e.tag === tag)
      ? Promise.resolve()
      : new Promise<void>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(`no event ${tag} on b within 15 s; b got ${JSON.stringify(got.map((e) => e.tag))}`)), 15_000);
          waiters.push({ tag, resolve: () => (clearTimeout(timer), resolve()) });
        });
  return { url, a, b, link, got, arrived };
}

/** A client of its own on the database, outside either store. */
async function rawClient(t: Test, url: string): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: withPassword(url, server.password) });
  await c.connect();
  t.teardown(() => c.end().catch(() => undefined));
  return c;
}

t.test("another master's event reaches this master's bus through NOTIFY, with the poll out of reach", async (t) => {
  const p = await pair(t);
  await p.a.insertEvent('salt/test/one', { n: 1 });
  await p.arrived('salt/test/one');
  t.match(p.got, [{ tag: 'salt/test/one', data: { n: 1 }, origin: 'a' }]);
  await p.a.insertEvent('salt/test/two', { n: 2 });
  await p.arrived('salt/test/two');
  t.same(
    p.got.map((e) => e.tag),
    ['salt/test/one', 'salt/test/two'],
  );
});

t.test("this master's own events are not delivered back to it", async (t) => {
  const p = await pair(t);
  await p.b.insertEvent('own/one', { n: 1 });
  await p.a.insertEvent('other/one', { n: 2 });
  // a's event was stored after b's own: once it is here, b's own one has been read and passed over
  await p.arrived('other/one');
  t.same(
    p.got.map((e) => [e.tag, e.origin]),
    [['other/one', 'a']],
  );
});

t.test('an event committed after a later one (a gap in the sequence) is waited for, not skipped', async (t) => {
  const p = await pair(t);
  const late = await rawClient(t, p.url);
  // takes the next sequence number now, becomes visible only at COMMIT
  await late.query('BEGIN');
  await late.query("INSERT INTO events (tag, data, created_at, origin) VALUES ('gap/late', 'null', $1, 'c')", [new Date().toISOString()]);
  await p.a.insertEvent('gap/early', null);
  await p.arrived('gap/early');
  await late.query('COMMIT');
  // the next NOTIFY wakes b: it must read the late one too, before the one after it
  await p.a.insertEvent('gap/after', null);
  await p.arrived('gap/after');
  t.same(
    p.got.map((e) => e.tag),
    ['gap/early', 'gap/late', 'gap/after'],
  );
});

t.test('a master silent for longer than the presence timeout no longer counts its minions', async (t) => {
  const p = await pair(t);
  const raw = await rawClient(t, p.url);
  await p.a.heartbeat('a', 'http://a');
  await p.a.setPresence('m1', 'a', true);
  await p.a.flush();
  t.same(await p.link.presence(), { m1: 'a' }, 'a fresh master counts');
  const silentFor = async (seconds: number) =>
    raw.query('UPDATE masters SET seen_at = $1 WHERE id = $2', [new Date(Date.now() - seconds * 1000).toISOString(), 'a']);
  // DESIGN.md: a master silent for 6 s is gone
  await silentFor(4);
  t.same(await p.link.presence(), { m1: 'a' }, 'a heartbeat missed is not yet gone');
  await silentFor(7);
  t.same(await p.link.presence(), {}, 'past the timeout its minions are not connected anywhere');
  await p.a.heartbeat('a', 'http://a');
  t.same(await p.link.presence(), { m1: 'a' }, 'back when it beats again');
});
