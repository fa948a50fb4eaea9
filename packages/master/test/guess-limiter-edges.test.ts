import t from 'tap';
import { GuessLimiter, sourceKey } from '../src/guess-limiter.js';

// The edges of the guess limiter that the first tests pass over: the defaults, the exact moment a
// quiet source is forgotten, the recency order of the table and the exact source of an address.

t.test('the defaults: 5 free guesses, then 1 s doubling up to 15 minutes', async (t) => {
  let now = 5_000_000;
  const g = new GuessLimiter({ now: () => now });
  for (let i = 0; i < 4; i++) g.failed('a');
  t.equal(g.retryAfter('a'), undefined, '4 wrong guesses are free');
  g.failed('a');
  t.equal(g.retryAfter('a'), 1, 'the 5th: 1 s');
  for (let i = 0; i < 20; i++) g.failed('a');
  t.equal(g.retryAfter('a'), 15 * 60, 'at most 15 minutes');
  now += 15 * 60_000;
  t.equal(g.retryAfter('a'), undefined);
});

t.test('baseMs is the first hold-off', async (t) => {
  const g = new GuessLimiter({ free: 1, baseMs: 3000, now: () => 0 });
  g.failed('a');
  t.equal(g.retryAfter('a'), 3);
});

t.test('a source still held off is not forgotten, however long ago its last guess', async (t) => {
  let now = 1_000_000;
  const g = new GuessLimiter({ free: 1, baseMs: 20_000, maxMs: 60_000, forgetMs: 10_000, now: () => now });
  g.failed('a');
  now += 15_000;
  t.equal(g.retryAfter('a'), 5, 'held off 20 s although forgetMs is 10 s');
});

t.test('a source is forgotten once its hold-off is over and it was quiet longer than forgetMs', async (t) => {
  let now = 1_000_000;
  const g = new GuessLimiter({ free: 1, baseMs: 20_000, maxMs: 60_000, forgetMs: 10_000, now: () => now });
  g.failed('a');
  now += 20_000; // the hold-off ends this very millisecond
  g.failed('a');
  t.equal(g.retryAfter('a'), 20, 'forgotten: the first hold-off again, not a doubled one');
  now += 20_000;
  t.equal(g.retryAfter('a'), undefined);
  t.equal(g.size, 0, 'a forgotten source leaves the table');
});

t.test('a source quiet exactly forgetMs is still remembered', async (t) => {
  let now = 1_000_000;
  const g = new GuessLimiter({ free: 1, baseMs: 1000, maxMs: 60_000, forgetMs: 10_000, now: () => now });
  g.failed('a');
  now += 1000;
  g.failed('a');
  t.equal(g.retryAfter('a'), 2, 'one second later: doubled');
  now += 10_000;
  g.failed('a');
  t.equal(g.retryAfter('a'), 4, 'exactly forgetMs later: remembered, doubled again');
});

t.test('a guess makes its source the most recent: the table drops the longest quiet', async (t) => {
  const g = new GuessLimiter({ free: 1, maxSources: 2, now: () => 0 });
  g.failed('a');
  g.failed('b');
  g.failed('a');
  g.failed('c');
  t.equal(g.size, 2);
  t.equal(g.retryAfter('a'), 2, 'a was seen after b: kept');
  t.equal(g.retryAfter('b'), undefined, 'b went');
});

t.test('the source of an address, exactly', async (t) => {
  t.equal(sourceKey('2001::1:2:3:4:5:6'), '2001:0:1:2::/64', 'groups after :: count');
  t.equal(sourceKey('2001:db8:1:2:3:4:5:6'), '2001:db8:1:2::/64');
  t.equal(sourceKey('fe80::1%eth0'), 'fe80:0:0:0::/64', 'a zone is dropped');
  t.equal(sourceKey('::ffff:10.20.30.40'), '10.20.30.40', 'an IPv4-mapped address with multi-digit parts');
  t.equal(sourceKey('1::ffff:10.0.0.1'), '1:0:0:0::/64', 'only ::ffff: at the start maps to IPv4');
  t.equal(sourceKey('::ffff:10.0.0.1x'), '::ffff:10.0.0.1x', 'not an address: itself');
});
