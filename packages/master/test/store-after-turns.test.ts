import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { MasterStore } from '../src/store.js';

/**
 * What waits on a commit (a return's ack, its `ret` event, the job's bookkeeping) runs in the
 * callbacks of that commit, and each callback's work goes on in its promise's continuation: a
 * commit of hundreds of returns ran all of them in the turn that committed, after the turn's
 * write budget. They run `afterPerTurn` a turn now, in the order their writes were queued.
 */
function storeIn(t: Test): MasterStore {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-after-turns-'));
  const s = new MasterStore(path.join(dir, 'master.db'));
  t.teardown(() => {
    s.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return s;
}

/** Counts turns of the event loop (each a setImmediate) while `until` is false. */
function turnCounter(until: () => boolean): { turn: () => number } {
  let n = 0;
  const tick = (): void => {
    n++;
    if (!until()) setImmediate(tick);
  };
  setImmediate(tick);
  return { turn: () => n };
}

t.test('the callbacks of one large commit run a slice a turn, in order', async (t) => {
  const s = storeIn(t);
  s.turnMs = Infinity; // one commit for every write: the callbacks are what is spread
  let commits = 0;
  s.onWriteTime = () => commits++;
  const N = 1000;
  const seen: number[] = [];
  const turns: number[] = [];
  const counter = turnCounter(() => seen.length === N);
  const all = Array.from(
    { length: N },
    (_, i) => new Promise<void>((resolve) => s.insertEvent(`a/${i}`, i, () => (seen.push(i), turns.push(counter.turn()), resolve()))),
  );
  await Promise.all(all);
  t.equal(commits, 1, 'one commit');
  t.same(
    seen,
    Array.from({ length: N }, (_, i) => i),
    'in the order queued',
  );
  const perTurn = new Map<number, number>();
  for (const x of turns) perTurn.set(x, (perTurn.get(x) ?? 0) + 1);
  t.ok(perTurn.size >= Math.ceil(N / s.afterPerTurn), `spread over ${perTurn.size} turns`);
  t.ok(Math.max(...perTurn.values()) <= s.afterPerTurn, `at most ${s.afterPerTurn} a turn`);
  const n = (s.db.prepare("SELECT count(*) AS n FROM events WHERE tag LIKE 'a/%'").get() as { n: number }).n;
  t.equal(n, N, 'every write was committed before its callback');
});

t.test('callbacks left for later turns run before a later commit’s, and flush runs them all at once', async (t) => {
  const s = storeIn(t);
  s.turnMs = Infinity;
  const order: string[] = [];
  // the commit is in the next turn: wait for its first slice of callbacks, then queue more
  await new Promise<void>((resolve) => {
    for (let i = 0; i < 300; i++) s.insertEvent(`b/${i}`, i, () => (order.push(`first ${i}`), i === 0 && resolve()));
  });
  t.ok(order.length < 300, `some of the first commit's callbacks wait (${order.length} ran)`);
  for (let i = 0; i < 5; i++) s.insertEvent(`c/${i}`, i, () => order.push(`second ${i}`));
  s.flush();
  t.equal(order.length, 305, 'flush ran every callback before returning');
  t.same(
    order.slice(0, 300),
    Array.from({ length: 300 }, (_, i) => `first ${i}`),
    'the older commit first',
  );
  t.same(
    order.slice(300),
    Array.from({ length: 5 }, (_, i) => `second ${i}`),
  );
});

t.test('close runs the callbacks still waiting', async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-after-turns-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const s = new MasterStore(path.join(dir, 'master.db'));
  s.turnMs = Infinity;
  let ran = 0;
  await new Promise<void>((resolve) => {
    for (let i = 0; i < 400; i++) s.insertEvent(`d/${i}`, i, () => (ran++, i === 0 && resolve()));
  });
  t.ok(ran < 400, 'some wait for later turns');
  s.close();
  t.equal(ran, 400, 'all ran at close');
});
