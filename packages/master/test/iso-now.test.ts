import t from 'tap';
import { isoNow } from '../src/iso-now.js';

t.test('isoNow is the ISO time of this millisecond, made again when the millisecond changes', async (t) => {
  const before = Date.now();
  const first = isoNow();
  const after = Date.now();
  t.ok(first >= new Date(before).toISOString() && first <= new Date(after).toISOString(), 'the time now');
  t.match(first, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/, "Date's own ISO form");
  // the clock moves on within a few milliseconds: the cached string must follow it
  const start = Date.now();
  while (Date.now() === start);
  const next = isoNow();
  t.ok(next > first, `a later millisecond gives a later stamp (${first} then ${next})`);
  t.equal(next, new Date(Date.parse(next)).toISOString());
});
