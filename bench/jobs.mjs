// Master job store: insert jobs and their returns the way the master does (jobs synchronously,
// returns through the batched writer), then query. Prints one JSON line.
// Usage: node bench/jobs.mjs [JOBS] [MINIONS_PER_JOB]   (default 200 x 100)
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { JidGenerator, MasterStore } from '@brine/master';

const JOBS = Number(process.argv[2] ?? 200);
const PER = Number(process.argv[3] ?? 100);
const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-jobs-'));
const store = new MasterStore(path.join(dir, 'master.db'));
const jids = new JidGenerator(store.lastJid());
const minions = Array.from({ length: PER }, (_, i) => `m${i}`);

const t0 = performance.now();
const created = [];
for (let j = 0; j < JOBS; j++) {
  const jid = jids.next();
  created.push(jid);
  store.insertJob({
    jid,
    fun: 'test.ping',
    arg: [],
    kwarg: {},
    target: '*',
    tgt_type: 'glob',
    user: 'bench',
    batch: null,
    created_at: new Date().toISOString(),
    expected: minions,
  });
}
const jobsMs = performance.now() - t0;

const t1 = performance.now();
await new Promise((resolve) => {
  let left = JOBS * PER;
  for (const jid of created) {
    for (const m of minions) {
      const now = new Date().toISOString();
      store.insertReturn({ jid, minion: m, fun: 'test.ping', success: true, retcode: 0, return: true, started: now, finished: now }, () => {
        if (--left === 0) resolve();
      });
    }
  }
});
const returnsMs = performance.now() - t1;

const t2 = performance.now();
const listed = store.listJobs({ minion: 'm7', limit: 50 });
const shown = store.returnsOf(created[Math.floor(JOBS / 2)]);
const queryMs = performance.now() - t2;
store.close();
rmSync(dir, { recursive: true, force: true });

console.log(
  JSON.stringify({
    bench: 'jobs',
    jobs: JOBS,
    minions_per_job: PER,
    jobs_per_s: Math.round(JOBS / (jobsMs / 1000)),
    returns_per_s: Math.round((JOBS * PER) / (returnsMs / 1000)),
    query_ms: Number(queryMs.toFixed(2)),
    listed: listed.length,
    shown: shown.length,
  }),
);
