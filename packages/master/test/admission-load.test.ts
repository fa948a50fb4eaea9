import t from 'tap';
import { AdmissionLoad } from '../src/admission-load.js';

/** A clock the test moves (ms). */
function clock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => void (now += ms) };
}

t.test('refused minions are booked one after another at the admission rate, not all over one wide window', async (t) => {
  const c = clock();
  const load = new AdmissionLoad(500, c.now);
  // a storm: 3,000 refused in the same moment with nobody queued ahead
  const windows = Array.from({ length: 3000 }, () => load.window(0));
  t.same(windows[0], { from: 0, to: 1 }, 'the first may come back at once');
  t.same(windows[1], { from: 0, to: 1 }, 'the next ones are booked 2 ms apart (500 a second)');
  t.same(windows[500], { from: 1, to: 2 }, 'the 501st from 1 s on');
  t.same(windows[2999], { from: 6, to: 7 }, 'the last one 6 s later: the master works them off at 500 a second');
  const froms = windows.map((w) => w.from);
  t.ok(
    froms.every((f, i) => i === 0 || f >= froms[i - 1]!),
    'later refusals never get earlier windows',
  );
});

t.test('the refused come back when the minions queued ahead of them are nearly in', async (t) => {
  const c = clock();
  const load = new AdmissionLoad(500, c.now);
  // 2,000 queued at 500 a second: 4 s of work; the first refused is asked back 1 s before it ends
  t.same(load.window(2000), { from: 3, to: 4 });
  c.advance(3000);
  // time went by: the queue is shorter, and the bookings already made still stand
  t.same(load.window(0), { from: 0, to: 1 }, 'booked right after the one before');
});

t.test('the rate is measured, refusals counted as half an admission', async (t) => {
  const c = clock(2_000_000);
  const load = new AdmissionLoad(500, c.now);
  for (let i = 0; i < 800; i++) load.noteAdmitted();
  for (let i = 0; i < 400; i++) load.noteRefused();
  t.equal(load.capacity(), 500, 'the second still counting is not used: the assumed rate');
  c.advance(1000);
  t.equal(load.capacity(), 1000, 'a whole second: 800 admitted and 400 refused count as 1,000 admissions');
  const w = Array.from({ length: 1001 }, () => load.window(0));
  t.same(w[1000], { from: 1, to: 2 }, 'booked at the measured rate');
  c.advance(6000);
  t.equal(load.capacity(), 500, 'forgotten after a few seconds: the assumed rate again');
});
