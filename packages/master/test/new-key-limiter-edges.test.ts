import t from 'tap';
import { NewKeyLimiter, sourceOf } from '../src/new-key-limiter.js';

// The edges of the new-key limiter: the exact source of an address, the recency order of the
// bounded table, and the refill seen through remainingTotal.

t.test('the source of an address, exactly', async (t) => {
  t.equal(sourceOf(undefined), '', 'no address');
  t.equal(sourceOf('10.0.0.1'), '10.0.0.1');
  t.equal(sourceOf('::ffff:10.0.0.1'), '10.0.0.1', 'IPv4-mapped');
  t.equal(sourceOf('::1'), '0:0:0:0::/64', 'nothing before ::');
  t.equal(sourceOf('2001::1:2:3:4:5:6'), '2001:0:1:2::/64', 'groups after :: count');
  t.equal(sourceOf('2001::1'), '2001:0:0:0::/64');
  t.equal(sourceOf('2001:db8:1:2:3:4:5:6'), '2001:db8:1:2::/64', 'no ::');
  t.equal(sourceOf('2001:0db8:00a0::'), '2001:db8:a0:0::/64', 'leading zeros dropped');
});

t.test('a hello makes its source the most recent: the table forgets the longest quiet', async (t) => {
  const l = new NewKeyLimiter({ perSource: 1, total: 1000, maxSources: 2 }, () => 0);
  t.equal(l.take('10.0.0.1'), 'ok');
  t.equal(l.take('10.0.0.2'), 'ok');
  t.equal(l.sources(), 2, 'maxSources sources are kept');
  t.equal(l.take('10.0.0.1'), 'source', 'refused, but seen');
  t.equal(l.take('10.0.0.3'), 'ok');
  t.equal(l.sources(), 2);
  t.equal(l.take('10.0.0.1'), 'source', '10.0.0.1 was seen after 10.0.0.2: still remembered with an empty bucket');
  t.equal(l.take('10.0.0.2'), 'ok', '10.0.0.2 was forgotten: a full bucket again');
});

t.test('remainingTotal refills with time', async (t) => {
  let now = 1_000_000;
  const l = new NewKeyLimiter({ perSource: 1000, total: 60 }, () => now);
  for (let i = 0; i < 60; i++) l.take(`10.0.0.${i}`);
  t.equal(l.remainingTotal(), 0);
  now += 10_000;
  t.equal(l.remainingTotal(), 10, '60 a minute: 10 in ten seconds');
  now += 3_600_000;
  t.equal(l.remainingTotal(), 60, 'never more than a full bucket');
});
