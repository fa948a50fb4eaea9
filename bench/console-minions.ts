// The console's minions page with N minions holding large grains: the time from opening
// #/minions to its first page of rows, and the bytes of the minion list it asked for, beside the
// whole list with every grain (what a list without pages and trimmed grains would ship).
// Usage: node bench/console-minions.ts [N] [grain KB]   (defaults 1000 and 50; needs Debian's chromium)
import Database from 'better-sqlite3';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { Cluster } from '../test/helpers/cluster.ts';

const N = Number(process.argv[2] ?? 1000);
const KB = Number(process.argv[3] ?? 50);
const cluster = new Cluster({ autosign: false });
await cluster.startMaster();
await cluster.master.kill();
const db = new Database(path.join(cluster.dir, 'master', 'master.db'));
const now = new Date().toISOString();
const big = Object.fromEntries(Array.from({ length: KB }, (_, i) => [`big_${i}`, 'x'.repeat(1000)]));
const addKey = db.prepare("INSERT INTO keys (minion, pub, fingerprint, state, created_at, updated_at) VALUES (?, 'pub', ?, 'accepted', ?, ?)");
const addMinion = db.prepare('INSERT INTO minions (minion, grains, last_seen, first_seen) VALUES (?, ?, ?, ?)');
db.transaction(() => {
  for (let i = 0; i < N; i++) {
    const id = `m${String(i).padStart(5, '0')}`;
    addKey.run(id, `FP:${i}`, now, now);
    addMinion.run(id, JSON.stringify({ id, os: 'Debian', osrelease: '12', ...big }), now, now);
  }
})();
db.close();
await cluster.startMaster();
const browser = await chromium.launch({
  executablePath: process.env.BRINE_CHROMIUM ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu'],
});
try {
  const page = await browser.newPage();
  await page.goto(`${cluster.apiUrl}/ui/`);
  await page.fill('input[name=token]', cluster.client.target.token);
  await page.click('form:has(input[name=token]) button[type=submit]');
  await page.waitForSelector('tr[data-minion]');
  let listBytes = 0;
  page.on('response', (r) => {
    if (r.url().includes('/v1/minions?'))
      r.body()
        .then((b) => (listBytes = b.length))
        .catch(() => undefined);
  });
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    await page.goto('about:blank');
    const t0 = Date.now();
    await page.goto(`${cluster.apiUrl}/ui/#/minions`);
    await page.waitForFunction(() => document.querySelectorAll('tr[data-minion]').length === 100);
    times.push(Date.now() - t0);
  }
  const t1 = Date.now();
  const all = await fetch(`${cluster.apiUrl}/v1/minions`, { headers: { authorization: `Bearer ${cluster.client.target.token}` } });
  const allBytes = (await all.arrayBuffer()).byteLength;
  const allMs = Date.now() - t1;
  times.sort((a, b) => a - b);
  console.log(
    JSON.stringify({
      minions: N,
      grain_kb: KB,
      page_load_ms_median: times[2],
      page_load_ms: times,
      page_list_bytes: listBytes,
      whole_list_bytes: allBytes,
      whole_list_ms: allMs,
    }),
  );
} finally {
  await browser.close();
  await cluster.close();
}
