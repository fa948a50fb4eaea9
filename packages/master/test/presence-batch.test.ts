import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { SqliteBackend } from '../src/store-sqlite.js';

/** A storm of connects: many minions' grains and last-seen rows in one tick go in one transaction. */
t.test("one tick's grains and last-seen writes of many minions commit in one transaction, all stored", async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-presence-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const store = SqliteBackend.open(path.join(dir, 'master.db'));
  t.teardown(() => store.close());
  // a turn's budget would cut the batch on a slow machine (store-group-commit.test.ts tests that)
  store.store.turnMs = Infinity;
  let transactions = 0;
  store.onWriteTime = () => transactions++;
  const ids = Array.from({ length: 300 }, (_, i) => `m${String(i).padStart(3, '0')}`);
  const saved = ids.map((id) => store.saveGrains(id, { id, os: 'Debian' }));
  // read-your-writes: a lookup right after the write sees it, before the tick's batch commits
  t.same(await store.grainsOf('m007'), { id: 'm007', os: 'Debian' }, 'a grains lookup sees the queued write');
  await Promise.all(saved);
  const touched = ids.map((id) => store.touchMinion(id));
  await Promise.all(touched);
  t.equal(transactions, 2, 'one transaction for the grains of all, one for their last-seen');
  const rows = await store.listMinions();
  t.equal(rows.length, ids.length, 'every row stored');
  t.ok(
    rows.every((r) => r.grains.os === 'Debian' && r.last_seen),
    'with grains and last seen',
  );
});
