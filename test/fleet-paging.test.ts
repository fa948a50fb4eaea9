import t from 'tap';
import net from 'node:net';
import { chromium, type Browser } from 'playwright-core';
import type { MinionAgent } from '@brine/minion';
import { Cluster } from './helpers/cluster.js';
import { startAgents } from './helpers/agents.js';
import { until } from './helpers/proc.js';

/**
 * A fleet of 250 real agents on a real master: `/v1/minions`, `brine minions` and the console's
 * list read it a page at a time, every minion exactly once; a job to all of them is sent in
 * turns of the event loop (200 sends a turn), with the API answering in between.
 */

const N = 250;
const cluster = new Cluster({ master: { timeout: 60, max_unauthenticated: 100000, max_unauthenticated_per_address: 100000 } });
let agents: MinionAgent[] = [];

interface Minion {
  id: string;
  connected: boolean;
  grains: Record<string, unknown>;
}
interface Page {
  minions: Minion[];
  total: number;
  next: string | null;
}

const id = (i: number) => `fleet-${String(i).padStart(3, '0')}`;
const allIds = Array.from({ length: N }, (_, i) => id(i));

t.before(async () => {
  await cluster.startMaster();
  agents = await startAgents(N, {
    dir: cluster.dir,
    port: cluster.port,
    prefix: 'fleet',
    grains: (i) => ({ os: 'Debian', osrelease: '12', role: i % 5 === 0 ? 'web' : 'db', packages: 'x'.repeat(2000) }),
  });
  await until(
    async () => {
      const { minions } = await cluster.client.get<Page>('/v1/minions');
      return minions.filter((m) => m.connected && m.grains.os).length === N ? true : undefined;
    },
    `${N} minions known`,
    60_000,
  );
});
t.teardown(async () => {
  await Promise.all(agents.map((a) => a.stop()));
  await cluster.close();
});

/** Follows `next` from the first page to the last. */
async function walk(query: string): Promise<{ ids: string[]; pages: Page[] }> {
  const pages: Page[] = [];
  let after: string | null = null;
  do {
    const page: Page = await cluster.client.get<Page>(`/v1/minions?${query}${after === null ? '' : `&after=${encodeURIComponent(after)}`}`);
    pages.push(page);
    after = page.next;
  } while (after !== null && pages.length <= N);
  return { ids: pages.flatMap((p) => p.minions.map((m) => m.id)), pages };
}

t.test('/v1/minions pages by cursor and by offset: every minion exactly once, with the total', async (t) => {
  const { ids, pages } = await walk('limit=40');
  t.equal(pages.length, 7, '250 minions in pages of 40');
  t.same(ids, allIds, 'each minion once, in id order');
  t.ok(
    pages.every((p) => p.total === N),
    'each page tells the total',
  );
  t.equal(pages.at(-1)!.next, null, 'the last page says there is no next');

  const byOffset: string[] = [];
  for (let offset = 0; offset < N; offset += 60) {
    const p = await cluster.client.get<Page>(`/v1/minions?limit=60&offset=${offset}`);
    byOffset.push(...p.minions.map((m) => m.id));
  }
  t.same(byOffset, allIds, 'offsets give the same minions');

  const trimmed = await cluster.client.get<Page>('/v1/minions?limit=5&grains=os,osrelease');
  t.same(trimmed.minions[0]!.grains, { os: 'Debian', osrelease: '12' }, 'only the grains asked for');
  const none = await cluster.client.get<Page>('/v1/minions?limit=5&grains=');
  t.same(none.minions[0]!.grains, {}, 'or none');

  const all = await cluster.client.get<Page>('/v1/minions');
  t.equal(all.minions.length, N, 'without a limit: every minion, as before');
  t.equal(all.minions[0]!.grains.packages, 'x'.repeat(2000), 'with all its grains');

  const web = await walk('limit=20&tgt=G@role:web&tgt_type=compound&grains=');
  t.same(
    web.ids,
    allIds.filter((_, i) => i % 5 === 0),
    'a target pages through its matches only',
  );
  t.equal(web.pages[0]!.total, N / 5);

  const one = await cluster.client.get<Page>(`/v1/minions?id=${id(7)}`);
  t.same(
    one.minions.map((m) => m.id),
    [id(7)],
    'one minion by id',
  );
});

t.test('brine minions reads every page, or shows the page asked for', async (t) => {
  const page = await cluster.brine(['minions', '--limit', '100', '--page', '3']);
  t.equal(page.code, 0, page.stderr);
  const lines = page.stdout.trim().split('\n');
  t.equal(lines.length, 50, 'page 3 of 100 a page: the last 50');
  t.match(lines[0], new RegExp(`^${id(200)}\\s+connected$`));
  const all = await cluster.brine(['minions', '--out', 'json']);
  t.equal(all.code, 0, all.stderr);
  t.same(
    (JSON.parse(all.stdout) as Array<{ id: string }>).map((m) => m.id),
    allIds,
    'every minion once',
  );
  const bad = await cluster.brine(['minions', '--page', '2']);
  t.not(bad.code, 0);
  t.match(bad.stderr, /--page needs --limit/);
});

/**
 * The event stream as written, over a plain socket: each HTTP chunk is one write of the master
 * (chunked transfer encoding keeps the boundaries whatever TCP does with them).
 */
function rawStream(tag: string): { chunks: string[]; opened: Promise<void>; close: () => void } {
  const url = new URL(cluster.apiUrl);
  const sock = net.connect(Number(url.port), url.hostname);
  sock.write(`GET /v1/events?tag=${encodeURIComponent(tag)} HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${cluster.client.target.token}\r\n\r\n`);
  const chunks: string[] = [];
  let buf = Buffer.alloc(0);
  let body = false;
  let onOpen: () => void;
  const opened = new Promise<void>((resolve) => (onOpen = resolve));
  sock.on('data', (d: Buffer) => {
    buf = Buffer.concat([buf, d]);
    if (!body) {
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) return;
      buf = buf.subarray(end + 4);
      body = true;
    }
    for (;;) {
      const eol = buf.indexOf('\r\n');
      if (eol < 0) return;
      const size = parseInt(buf.subarray(0, eol).toString(), 16);
      if (buf.length < eol + 2 + size + 2) return;
      const chunk = buf.subarray(eol + 2, eol + 2 + size).toString();
      buf = buf.subarray(eol + 2 + size + 2);
      if (chunk.startsWith(': subscribed')) onOpen();
      else chunks.push(chunk);
    }
  });
  return { chunks, opened, close: () => sock.destroy() };
}

t.test('a job to every minion is sent in turns while the API answers; the stream writes its events in few writes', async (t) => {
  const stream = rawStream('brine/job/*/ret/*');
  t.teardown(stream.close);
  await stream.opened;
  const before = await cluster.client.get<{ publish_turns: number }>('/v1/stats');
  const job = cluster.run('*', 'test.ping');
  // asked while the job goes out and returns arrive: answered on its own
  const page = await cluster.client.get<Page>('/v1/minions?limit=1&grains=');
  t.equal(page.total, N);
  const res = await job;
  t.equal(Object.keys(res.returns).length, N, 'every minion returned');
  t.same(res.missing, []);
  const after = await cluster.client.get<{ publish_turns: number }>('/v1/stats');
  t.equal(after.publish_turns - before.publish_turns, 2, '250 sends: 200, then the other 50 in a later turn');
  const events = () => stream.chunks.join('').split('event: brine\n').length - 1;
  await until(() => (events() === N ? true : undefined), 'every return streamed');
  t.ok(stream.chunks.length < N, `${N} returns streamed in ${stream.chunks.length} writes: those of one turn together`);
});

t.test('the console lists a page of minions at a time, with only the grains it shows', async (t) => {
  const browser: Browser = await chromium.launch({
    executablePath: process.env.BRINE_CHROMIUM ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  t.teardown(() => browser.close());
  const page = await browser.newPage();
  const asked: string[] = [];
  page.on('request', (r) => {
    if (r.url().includes('/v1/minions')) asked.push(r.url());
  });
  await page.goto(`${cluster.apiUrl}/ui/`);
  await page.fill('input[name=token]', cluster.client.target.token);
  await page.click('form:has(input[name=token]) button[type=submit]');
  await page.waitForSelector(`tr[data-minion="${id(0)}"]`);
  t.equal(await page.locator('tr[data-minion]').count(), 100, 'the first page: 100 minions');
  t.match(await page.locator('.pager').innerText(), /1–100 of 250 minions/);
  t.match(asked[0], /limit=100.*grains=os%2Cosrelease/, 'a page, and two grains, asked of the master');
  await page.click('a[rel=next]');
  await page.waitForSelector(`tr[data-minion="${id(100)}"]`);
  t.equal(await page.locator(`tr[data-minion="${id(0)}"]`).count(), 0, 'the second page replaces the first');
  await page.click('a[rel=next]');
  await page.waitForSelector(`tr[data-minion="${id(249)}"]`);
  t.equal(await page.locator('tr[data-minion]').count(), 50, 'the last page: 50');
  t.equal(await page.locator('a[rel=next]').count(), 0, 'and no next page');
  t.match(await page.locator('tr[data-minion="fleet-249"]').innerText(), /Debian 12/, 'the OS column has its grains');
});
