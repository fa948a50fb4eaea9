import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import t, { type Test } from 'tap';
import { MasterStore } from '../src/store.js';
import { SqliteBackend } from '../src/store-sqlite.js';

/**
 * A fleet's returns arrive a few per turn of the event loop, and each commit writes every page it
 * touched (the tables and their indexes) to the WAL: the store commits at most once per
 * `groupMs`, with everything queued meanwhile, and a write after a quiet spell at once. A reader
 * (flush) never waits for the window.
 */
function storeIn(t: Test): MasterStore {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-group-commit-'));
  const s = new MasterStore(path.join(dir, 'master.db'));
  t.teardown(() => {
    s.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return s;
}

const count = (s: MasterStore): number => (s.db.prepare("SELECT count(*) AS n FROM events WHERE tag LIKE 'g/%'").get() as { n: number }).n;

t.test('writes queued over many turns inside the window go in one commit', async (t) => {
  const s = storeIn(t);
  s.groupMs = 60_000;
  let commits = 0;
  s.onWriteTime = () => commits++;
  const first = new Promise<void>((resolve) => s.insertEvent('g/0', 0, resolve));
  await first;
  t.equal(commits, 1, 'a write after a quiet spell commits at once');
  const stored: Array<Promise<void>> = [];
  for (let i = 1; i <= 20; i++) {
    stored.push(new Promise<void>((resolve) => s.insertEvent(`g/${i}`, i, resolve)));
    await nextTurn();
  }
  t.equal(commits, 1, 'none committed within the window');
  t.equal(count(s), 1);
  s.flush();
  await Promise.all(stored);
  t.equal(commits, 2, 'a reader flushes them: one commit for 20 turns of writes');
  t.equal(count(s), 21, 'all stored');
});

t.test('after the window the queued writes commit on their own', async (t) => {
  const s = storeIn(t);
  s.groupMs = 30;
  let commits = 0;
  s.onWriteTime = () => commits++;
  await new Promise<void>((resolve) => s.insertEvent('g/a', 0, resolve));
  const later: Array<Promise<void>> = [];
  for (let i = 0; i < 5; i++) later.push(new Promise<void>((resolve) => s.insertEvent(`g/b${i}`, i, resolve)));
  await Promise.all(later);
  t.equal(count(s), 6, 'all stored without a reader');
  t.ok(commits <= 3, `grouped (${commits} commits)`);
});

t.test('a reader of the backend waits for queued writes a turn at a time, not in one long commit', async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-group-commit-'));
  const b = SqliteBackend.open(path.join(dir, 'master.db'));
  t.teardown(async () => {
    await b.close();
    rmSync(dir, { recursive: true, force: true });
  });
  // every turn's commit stops after its first 32 writes: the turns are counted, not timed
  b.store.turnMs = 0;
  b.store.groupMs = 60_000;
  await b.insertEvent('g/first', 0);
  let commits = 0;
  b.store.onWriteTime = () => commits++;
  const written: Array<Promise<void>> = [];
  for (let i = 0; i < 320; i++) written.push(b.saveGrains(`m${i}`, { os: 'Debian' }));
  t.equal(await b.countMinions(), 320, 'the reader sees every write queued before it');
  t.ok(commits >= 10, `committed in ${commits} transactions, one a turn`);
  commits = 0;
  for (let i = 0; i < 64; i++) written.push(b.touchMinion(`m${i}`));
  await b.flush();
  await Promise.all(written);
  t.ok(commits >= 2, `flush too (${commits} transactions)`);
});
