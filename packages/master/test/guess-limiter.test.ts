import t from 'tap';
import { GuessLimiter, sourceKey } from '../src/guess-limiter.js';

t.test('wrong guesses from one source are answered, then held off for a growing delay', async (t) => {
  let now = 1_000_000;
  const g = new GuessLimiter({ free: 3, baseMs: 1000, maxMs: 8000, now: () => now });
  for (let i = 0; i < 3; i++) {
    t.equal(g.retryAfter('10.0.0.1'), undefined, `guess ${i + 1} is answered`);
    g.failed('10.0.0.1');
  }
  t.equal(g.retryAfter('10.0.0.1'), 1, 'after 3 failures: 1 s');
  t.equal(g.retryAfter('10.0.0.2'), undefined, 'another source is not held off');
  now += 999;
  t.equal(g.retryAfter('10.0.0.1'), 1, 'still held off just before the delay ends');
  now += 1;
  t.equal(g.retryAfter('10.0.0.1'), undefined, 'answered again once the delay is over');
  g.failed('10.0.0.1');
  t.equal(g.retryAfter('10.0.0.1'), 2, 'the next failure doubles the delay');
  now += 2000;
  g.failed('10.0.0.1');
  t.equal(g.retryAfter('10.0.0.1'), 4);
  now += 4000;
  g.failed('10.0.0.1');
  now += 8000;
  g.failed('10.0.0.1');
  t.equal(g.retryAfter('10.0.0.1'), 8, 'the delay stops growing at maxMs');
  now += 8000;
  g.succeeded('10.0.0.1');
  t.equal(g.retryAfter('10.0.0.1'), undefined, 'a success from the source clears its record');
  g.failed('10.0.0.1');
  t.equal(g.retryAfter('10.0.0.1'), undefined, 'and its free guesses are back');
});

t.test('a source silent for forgetMs starts over; the table is bounded', async (t) => {
  let now = 0;
  const g = new GuessLimiter({ free: 1, baseMs: 1000, maxMs: 60_000, forgetMs: 10_000, maxSources: 3, now: () => now });
  g.failed('a');
  t.equal(g.retryAfter('a'), 1);
  now += 10_001;
  t.equal(g.retryAfter('a'), undefined);
  g.failed('a');
  t.equal(g.retryAfter('a'), 1, 'forgotten: the first delay again, not the second');
  for (const s of ['b', 'c', 'd']) g.failed(s);
  t.equal(g.size, 3, 'no more than maxSources records');
  t.equal(g.retryAfter('a'), undefined, 'the oldest record went first');
});

t.test('an IPv6 source is its /64: one host has a whole prefix to guess from', async (t) => {
  t.equal(sourceKey('2001:db8:1:2:aaaa::1'), sourceKey('2001:db8:1:2:bbbb::2'));
  t.not(sourceKey('2001:db8:1:2::1'), sourceKey('2001:db8:1:3::1'));
  t.equal(sourceKey('::ffff:10.0.0.1'), '10.0.0.1', 'an IPv4-mapped address is the IPv4 address');
  t.equal(sourceKey('10.0.0.1'), '10.0.0.1');
  t.equal(sourceKey('::1'), sourceKey('0:0:0:0:0:0:0:1'));
});
