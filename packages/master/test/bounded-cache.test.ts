import t from 'tap';
import { BoundedCache } from '../src/bounded-cache.js';

t.test('entries are evicted least recently used first, by count', async (t) => {
  const c = new BoundedCache<{ n: number }>(2, 1_000_000, () => 1);
  c.set('a', { n: 1 });
  c.set('b', { n: 2 });
  t.same(c.get('a'), { n: 1 }, 'a read makes a recent');
  c.set('c', { n: 3 });
  t.equal(c.get('b'), undefined, 'b was the least recently used');
  t.ok(c.get('a') && c.get('c'));
  c.set('a', { n: 4 });
  c.set('d', { n: 5 });
  t.equal(c.get('c'), undefined, 'a set refreshes an entry too');
  t.same(c.get('a'), { n: 4 });
  t.equal(c.hits, 4);
  t.equal(c.misses, 2);
});

t.test('the memory bound evicts too, whatever the count allows', async (t) => {
  const c = new BoundedCache<{ bytes: number }>(1000, 100, (v) => v.bytes);
  c.set('a', { bytes: 60 });
  c.set('b', { bytes: 60 });
  t.equal(c.get('a'), undefined, 'two of 60 do not fit in 100');
  t.ok(c.get('b'));
  c.set('huge', { bytes: 10_000 });
  t.ok(c.get('huge'), 'a value larger than the bound is kept alone rather than refused');
  t.equal(c.size, 1);
});

t.test('a size of 0 turns the cache off', async (t) => {
  const c = new BoundedCache<{ n: number }>(0, 100, () => 1);
  c.set('a', { n: 1 });
  t.equal(c.get('a'), undefined);
});
