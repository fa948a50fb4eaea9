import t from 'tap';
import { SlicedQueue } from '../src/fifo.js';

/** Busy-waits `ms`: a task that costs CPU, as a hello's key lookup and signature check do. */
function spin(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end);
}

t.test('a burst of admission tasks runs in order, in slices, giving the event loop back between them', async (t) => {
  const q = new SlicedQueue(8, 10);
  const done: number[] = [];
  let timerRanAfter = -1;
  const all = new Promise<void>((resolve) => {
    for (let i = 0; i < 100; i++) {
      q.push(async () => {
        spin(1);
        done.push(i);
        // a timer due at once: were the burst run in one go, it would fire only after all 100 tasks
        if (i === 20) setTimeout(() => (timerRanAfter = done.length), 0);
        if (i === 99) resolve();
      });
    }
  });
  await all;
  t.same(
    done,
    Array.from({ length: 100 }, (_, i) => i),
    'every task ran, in arrival order',
  );
  t.ok(timerRanAfter > 20 && timerRanAfter < 100, `the timer ran after ${timerRanAfter} of 100 tasks`);
  // a task that throws does not stop the queue
  const after = new Promise<void>((resolve) => {
    q.push(async () => {
      throw new Error('boom');
    });
    q.push(async () => resolve());
  });
  await after;
  t.equal(q.length, 0);
});
