import t from 'tap';
import { NewKeyLimiter } from '../src/new-key-limiter.js';

function clock(start = 1_000_000) {
  const c = { now: start, read: () => c.now };
  return c;
}

function takeN(l: NewKeyLimiter, source: string, n: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(l.take(source));
  return out;
}

t.test('a source gets its rate per minute, refilled at that rate', async (t) => {
  const c = clock();
  const l = new NewKeyLimiter({ perSource: 60, total: 1000 }, c.read);
  t.same(new Set(takeN(l, '10.0.0.1', 60)), new Set(['ok']), 'a full bucket of 60');
  t.equal(l.take('10.0.0.1'), 'source', 'the 61st within the minute is refused');
  // 60 a minute is one a second: 999 ms give less than one token, one second exactly one
  c.now += 999;
  t.equal(l.take('10.0.0.1'), 'source', 'not yet a whole token after 999 ms');
  c.now += 1;
  t.equal(l.take('10.0.0.1'), 'ok', 'one token after a second');
  t.equal(l.take('10.0.0.1'), 'source', 'and only one');
  c.now += 30_000;
  t.same(takeN(l, '10.0.0.1', 31), [...Array<string>(30).fill('ok'), 'source'], 'half a minute gives half the bucket');
  c.now += 3_600_000;
  t.same(takeN(l, '10.0.0.1', 61), [...Array<string>(60).fill('ok'), 'source'], 'a long wait never gives more than the bucket');
});

t.test('a flood from one source does not lock out another', async (t) => {
  const c = clock();
  const l = new NewKeyLimiter({ perSource: 3, total: 100 }, c.read);
  t.same(takeN(l, '10.0.0.1', 50), [...Array<string>(3).fill('ok'), ...Array<string>(47).fill('source')]);
  t.equal(l.take('10.0.0.2'), 'ok', 'a genuine new minion elsewhere enrolls');
  t.equal(l.take('::ffff:10.0.0.3'), 'ok');
  // refused hellos spend nothing of the ceiling: 3 + 1 + 1 taken of 100
  t.equal(l.remainingTotal(), 95);
});

t.test('the global ceiling holds over many sources', async (t) => {
  const c = clock();
  const l = new NewKeyLimiter({ perSource: 2, total: 10 }, c.read);
  const got: string[] = [];
  for (let i = 0; i < 8; i++) got.push(...takeN(l, `10.0.1.${i}`, 2));
  t.equal(got.filter((g) => g === 'ok').length, 10);
  t.equal(got.filter((g) => g === 'total').length, 6);
  // the ceiling refills at its own rate: 10 a minute is one per 6 s
  c.now += 5_999;
  t.equal(l.take('10.0.2.1'), 'total');
  c.now += 1;
  t.equal(l.take('10.0.2.1'), 'ok');
});

t.test('IPv6 sources count per /64, IPv4-mapped addresses as IPv4', async (t) => {
  const l = new NewKeyLimiter({ perSource: 1, total: 100 }, clock().read);
  t.equal(l.take('2001:db8:1:2::1'), 'ok');
  t.equal(l.take('2001:db8:1:2:ffff::9'), 'source', 'the same /64');
  t.equal(l.take('2001:db8:1:3::1'), 'ok', 'another /64');
  t.equal(l.take('10.9.9.9'), 'ok');
  t.equal(l.take('::ffff:10.9.9.9'), 'source', 'the same IPv4 address');
});

t.test('the per-source table is bounded', async (t) => {
  const c = clock();
  const l = new NewKeyLimiter({ perSource: 1, total: 1_000_000, maxSources: 100 }, c.read);
  for (let i = 0; i < 1000; i++) l.take(`10.1.${i >> 8}.${i & 255}`);
  t.ok(l.sources() <= 100, `${l.sources()} sources held`);
  // the most recent sources are the ones kept: still refused
  t.equal(l.take('10.1.3.231'), 'source');
});
