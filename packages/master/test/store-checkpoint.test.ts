import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { MasterStore } from '../src/store.js';

/**
 * A WAL checkpoint copies the WAL into the database file and syncs it: on the connection that
 * commits (SQLite's autocheckpoint) it would run on the master's event loop. The master's
 * connection checkpoints nothing; a worker thread with its own connection does, once the WAL
 * passes a size.
 */
function storeIn(t: Test): { s: MasterStore; file: string } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-checkpoint-'));
  const file = path.join(dir, 'master.db');
  const s = new MasterStore(file);
  t.teardown(() => {
    s.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { s, file };
}

const stored = (s: MasterStore, tag: string, data: unknown): Promise<void> => new Promise((resolve) => s.insertEvent(tag, data, resolve));

t.test("the master's connection never checkpoints: a worker does once the WAL passes its size", async (t) => {
  const { s, file } = storeIn(t);
  t.equal(s.db.pragma('wal_autocheckpoint', { simple: true }), 0, 'no autocheckpoint on the connection that commits');
  let results = 0;
  s.checkpoints.onCheckpoint = () => results++;
  const blob = 'x'.repeat(2000);
  s.checkpoints.bytes = 1 << 30;
  for (let i = 0; i < 100; i++) await stored(s, `c/${i}`, blob);
  t.equal(results, 0, 'none while the WAL is under its size');
  const walBefore = statSync(`${file}-wal`).size;
  t.ok(walBefore > 200 * 1000, 'the rows are in the WAL');
  s.checkpoints.bytes = 64 * 1024;
  const done = new Promise<{ checkpointed: number; log: number; error?: string }>((resolve) => (s.checkpoints.onCheckpoint = resolve));
  await stored(s, 'c/last', 1);
  const r = await done;
  t.equal(r.error, undefined);
  t.ok(r.checkpointed > 0 && r.checkpointed === r.log, `the worker copied all ${r.log} frames into the database`);
  t.ok(statSync(file).size > 200 * 1000, 'the rows are in the database file');
  // the next commit restarts the WAL and cuts it back to the size
  await stored(s, 'd/0', 1);
  t.ok(statSync(`${file}-wal`).size <= s.checkpoints.bytes, 'the WAL does not keep growing');
});

t.test('what the worker checkpointed is there after a reopen, and a close checkpoints the rest', async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-checkpoint-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'master.db');
  const s = new MasterStore(file);
  s.checkpoints.bytes = 16 * 1024;
  const done = new Promise<void>((resolve) => (s.checkpoints.onCheckpoint = () => resolve()));
  for (let i = 0; i < 50; i++) await stored(s, `c/${i}`, 'y'.repeat(1000));
  await done;
  for (let i = 50; i < 60; i++) await stored(s, `c/${i}`, 1);
  s.close();
  t.notOk(existsSync(`${file}-wal`), "the worker's connection closed first: the master's, closing last, checkpointed and removed the WAL");
  const again = new MasterStore(file);
  t.equal((again.db.prepare("SELECT count(*) AS n FROM events WHERE tag LIKE 'c/%'").get() as { n: number }).n, 60);
  again.close();
});
