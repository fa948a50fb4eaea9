import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { MasterStore } from '../src/store.js';
import { SqliteBackend } from '../src/store-sqlite.js';

/**
 * A job's returns are read back (its report, `brine jobs show`, a wait) over several turns of the
 * event loop: each row's return is parsed, and 2,000 highstate returns parsed in one go held the
 * loop 110-220 ms. Turns are counted by a chain of setImmediate, not timed; the returns are
 * large enough (1,000 of 40 KB) that no machine parses them within one turn's budget.
 */
t.test("a large job's returns are read over several turns, every one once and in order", async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-returns-read-'));
  const store = new MasterStore(path.join(dir, 'master.db'));
  t.teardown(() => {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const backend = new SqliteBackend(store);
  const jid = '20261128120000000001';
  const minions = Array.from({ length: 1000 }, (_, i) => `m${String(i).padStart(4, '0')}`);
  await backend.insertJob({
    jid,
    fun: 'state.apply',
    arg: [],
    kwarg: {},
    target: '*',
    tgt_type: 'glob',
    user: 'root',
    batch: null,
    created_at: new Date().toISOString(),
    expected: minions,
  });
  const states = Object.fromEntries(
    Array.from({ length: 100 }, (_, i) => [`file_|-f${i}_|-/tmp/f${i}_|-managed`, { result: true, comment: 'x'.repeat(300), changes: {} }]),
  );
  await Promise.all(
    minions.map((minion) => backend.insertReturn({ jid, minion, fun: 'state.apply', success: true, retcode: 0, return: states, started: 's', finished: 'f' })),
  );
  let turns = 0;
  let counting = true;
  const tick = (): void => {
    turns++;
    if (counting) setImmediate(tick);
  };
  setImmediate(tick);
  const rows = await backend.returnsOf(jid);
  counting = false;
  t.ok(turns >= 3, `read over ${turns} turns`);
  t.same(
    rows.map((r) => r.minion),
    minions,
    'every return once, by minion',
  );
  t.same(rows[999]!.return, states, 'each parsed whole');
});
