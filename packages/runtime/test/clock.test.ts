// start_time without a Date per state: the same text as formatting the instant's Date, across
// second boundaries and in another time zone.
import t from 'tap';
import { formatStartTime, startTimeOf } from '../src/clock.js';

const viaDate = (epoch: number) => formatStartTime(new Date(Math.floor(epoch)), (epoch - Math.floor(epoch)) * 1000);

t.test('the instant formatted as its Date would be, within a second and across seconds', async (t) => {
  const base = Date.UTC(2026, 10, 27, 21, 59, 58, 990) + 0.25;
  for (const step of [0, 0.001, 0.4, 3, 9.999, 10, 250.5, 1000, 1009.75, 61_000, 3_600_000.123]) {
    const epoch = base + step;
    t.equal(startTimeOf(epoch), viaDate(epoch), `+${step} ms`);
  }
  // back in time (a clock set back) as well
  t.equal(startTimeOf(base - 5000.5), viaDate(base - 5000.5));
  t.equal(startTimeOf(base), viaDate(base));
});

t.test('microseconds: six digits, the fraction of a millisecond truncated', async (t) => {
  const epoch = Date.UTC(2026, 0, 1, 0, 0, 0, 7) + 0.0429;
  t.match(startTimeOf(epoch), /^\d\d:\d\d:00\.007042$/);
});
