import t from 'tap';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { Cluster } from './helpers/cluster.js';
import { brine, REPO, until } from './helpers/proc.js';

/**
 * The web console in a real browser (Debian's chromium, driven by playwright-core) against a real
 * master and real minions: sign in, accept a pending key, run a highstate and watch its results
 * arrive, open a failed state, and compare the live view with the stored one. Minion-controlled
 * text (a grain, a state comment) holding markup must stay text. With BRINE_SCREENSHOTS=1 each
 * page is saved under docs/screenshots/.
 */

const XSS = '<img src=x onerror="window.__xss=1">';
const SHOTS = process.env.BRINE_SCREENSHOTS === '1' ? path.join(REPO, 'docs', 'screenshots') : undefined;
const tree = mkdtempSync(path.join(os.tmpdir(), 'brine-console-'));
const gate = path.join(tree, 'go');
writeFileSync(path.join(tree, 'top.sls'), "base:\n  '*':\n    - site\n");
let site = '';
for (let i = 0; i < 6; i++) site += `early-${i}:\n  test.succeed_with_changes:\n    - name: early step ${i}\n`;
// the run stops here until the test opens the gate: what the page shows by then arrived live
site += `wait-for-gate:\n  cmd.run:\n    - name: 'while [ ! -f ${gate} ]; do sleep 0.05; done'\n`;
site += `late:\n  test.succeed_without_changes: []\n`;
site += `broken:\n  test.fail_without_changes:\n    - comment: '${XSS}'\n`;
writeFileSync(path.join(tree, 'site.sls'), site);
// a second gate, for the job that ends while the page's live stream is still connecting
const lateGate = path.join(tree, 'go-late');
writeFileSync(path.join(tree, 'slow.sls'), `wait:\n  cmd.run:\n    - name: 'while [ ! -f ${lateGate} ]; do sleep 0.05; done'\n`);
writeFileSync(path.join(tree, 'orch.sls'), 'ping:\n  salt.function:\n    - name: test.ping\n    - tgt: db1\n');

const cluster = new Cluster({
  autosign: false,
  master: { file_roots: { base: [tree] }, timeout: 60, external_auth: { local: { ops: ['.*', '@wheel', '@jobs'] } } },
  minionConfig: (id) => ({ grains: { role: id.startsWith('web') ? 'web' : 'db', note: XSS } }),
});
let browser: Browser;
let highstateJid = '';
let page: Page;
const dialogs: string[] = [];
const CONSOLE_SHOTS = path.join(REPO, 'docs', 'console');

async function shot(name: string): Promise<void> {
  if (!SHOTS) return;
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
}

/** The README's console screenshots (docs/console/), written when BRINE_SCREENSHOTS=1. */
async function readmeShot(p: Page, name: string): Promise<void> {
  if (!SHOTS) return;
  mkdirSync(CONSOLE_SHOTS, { recursive: true });
  await p.screenshot({ path: path.join(CONSOLE_SHOTS, `${name}.png`), fullPage: true });
}

/** The left edges of the visible header cells and of the visible cells of the first row of `kind`. */
async function columns(p: Page, kind: string): Promise<{ head: number[]; row: number[]; overflow: boolean }> {
  return p.evaluate((sel) => {
    const lefts = (cells: Iterable<Element>): number[] =>
      [...cells].filter((c) => (c as HTMLElement).offsetParent !== null).map((c) => Math.round(c.getBoundingClientRect().left));
    const wrap = document.querySelector('main .table-wrap')!;
    return {
      head: lefts(wrap.querySelectorAll('thead th')),
      row: lefts(wrap.querySelector(sel)!.children),
      overflow: wrap.scrollWidth > wrap.clientWidth,
    };
  }, kind);
}

t.before(async () => {
  await cluster.startMaster();
  browser = await chromium.launch({
    executablePath: process.env.BRINE_CHROMIUM ?? '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  page = await browser.newPage({ viewport: { width: 1200, height: 800 } });
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    d.accept().catch((err: unknown) => t.fail(`the console's dialog was not accepted: ${String(err)}`));
  });
});
t.teardown(async () => {
  await browser?.close();
  await cluster.close();
  rmSync(tree, { recursive: true, force: true });
});

t.test('sign in with the API token: the token never appears in a URL, the pages carry a strict CSP', async (t) => {
  const res = await page.goto(`${cluster.apiUrl}/ui/`);
  t.match(res?.headers()['content-security-policy'], /default-src 'self'.*script-src 'self'/);
  t.equal(res?.headers()['x-frame-options'], 'SAMEORIGIN');
  await page.waitForSelector('form.login');
  await shot('login');
  await page.waitForSelector(`form.login label:has-text("${path.join(cluster.dir, 'master', 'api_token')}")`);
  t.notMatch(await page.locator('form:has(input[name=token])').innerText(), /var\/lib\/brine/, "the hint names this master's token file, not the default");
  await page.fill('input[name=token]', 'not-the-token');
  await page.click('form:has(input[name=token]) button[type=submit]');
  await page.waitForSelector('text=That token is not this master');
  await page.fill('input[name=token]', cluster.client.target.token);
  await page.click('form:has(input[name=token]) button[type=submit]');
  await page.waitForSelector('h1:has-text("Minions")');
  t.notMatch(page.url(), cluster.client.target.token, 'the token is not in the URL');
  const cookies = await page.context().cookies();
  const session = cookies.find((c) => c.name === 'brine_session');
  t.ok(session?.httpOnly, 'the session cookie is HttpOnly');
  t.equal(session?.sameSite, 'Strict');
  // a state-changing call with the session but without the CSRF header is refused
  const status = await page.evaluate(
    async () =>
      (await fetch('/v1/keys/accept', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ all: true }) })).status,
  );
  t.equal(status, 403, 'no CSRF token, no change');
});

t.test('a pending key is shown and accepted behind a confirmation', async (t) => {
  const web1 = cluster.startMinion('web1');
  await until(async () => ((await cluster.client.get<{ pending: string[] }>('/v1/keys')).pending.includes('web1') ? true : undefined), 'web1 pending');
  await page.goto(`${cluster.apiUrl}/ui/#/keys`);
  await page.waitForSelector('tr[data-key="web1"] >> text=Accept');
  await shot('keys');
  const finger = (await cluster.client.get<{ keys: Array<{ minion: string; fingerprint: string }> }>('/v1/keys')).keys.find(
    (k) => k.minion === 'web1',
  )!.fingerprint;
  await page.click('tr[data-key="web1"] >> text=Accept');
  await page.waitForSelector('h2:has-text("Accepted (1)")');
  t.ok(dialogs.at(-1)?.includes(finger), `the confirmation shows the fingerprint to compare: ${dialogs.at(-1)}`);
  await web1.waitEvent('minion_ready', 30_000);
  const keys = await cluster.client.get<{ accepted: string[] }>('/v1/keys');
  t.same(keys.accepted, ['web1']);
  cluster.startMinion('web2');
  cluster.startMinion('db1');
  const stray = cluster.startMinion('stray1');
  await until(async () => ((await cluster.client.get<{ pending: string[] }>('/v1/keys')).pending.length === 3 ? true : undefined), 'three more pending');
  await stray.kill();
  await page.reload();
  await page.click('tr[data-key="stray1"] >> text=Delete');
  await page.waitForSelector('h2:has-text("Pending (2)")');
  t.match(dialogs.at(-1), /Delete the key of stray1/);
  t.notOk(
    (await cluster.client.get<{ keys: Array<{ minion: string }> }>('/v1/keys')).keys.some((k) => k.minion === 'stray1'),
    'the key is gone',
  );
  await readmeShot(page, 'keys');
  await page.click('button:has-text("Accept all pending (2)")');
  await page.waitForSelector('h2:has-text("Accepted (3)")');
  t.match(dialogs.at(-1), /Accept the 2 pending keys[\s\S]*db1[\s\S]*web2/, 'the confirmation lists them with fingerprints');
  await cluster.waitMinionsKnown(['web1', 'web2', 'db1']);
});

t.test('the minions page: connection, key, OS, and a target filter with brine run matchers', async (t) => {
  await page.goto(`${cluster.apiUrl}/ui/#/minions`);
  await page.waitForSelector('tr[data-minion="db1"]');
  t.equal(await page.locator('tr[data-minion]').count(), 3);
  t.match(await page.locator('tr[data-minion="web1"]').innerText(), /connected[\s\S]*accepted/);
  // G@/L@ forms are compound targets: the filter knows without "compound" being picked
  await page.fill('input[name=tgt]', 'G@role:web');
  await page.click('text=Filter');
  await page.waitForFunction(() => document.querySelectorAll('tr[data-minion]').length === 2);
  t.same(await page.locator('tr[data-minion]').evaluateAll((rows) => rows.map((r) => (r as HTMLElement).dataset.minion)), ['web1', 'web2']);
  t.equal(await page.locator('select[name=tgt_type]').inputValue(), 'compound');
  await page.fill('input[name=tgt]', 'L@web1,db1');
  await page.selectOption('select[name=tgt_type]', 'glob');
  await page.click('text=Filter');
  await page.waitForFunction(() => [...document.querySelectorAll('tr[data-minion]')].map((r) => (r as HTMLElement).dataset.minion).join() === 'db1,web1');
  await page.setViewportSize({ width: 390, height: 800 });
  await page.goto(`${cluster.apiUrl}/ui/#/minions`);
  await page.waitForSelector('tr[data-minion="db1"]');
  await shot('minions-phone');
  await page.setViewportSize({ width: 1200, height: 800 });
});

t.test('a grain holding markup is shown as text on the minion page', async (t) => {
  await page.goto(`${cluster.apiUrl}/ui/#/minion/web1`);
  await page.waitForSelector('h2:has-text("Grains")');
  t.match(await page.locator('main').innerText(), XSS.replace(/"/g, '\\"'), 'the grain is there, as text');
  t.equal(await page.locator('main img[src=x]').count(), 0, 'no element was made from it');
  t.equal(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss), undefined, 'nothing ran');
  await shot('minion');
});

t.test('run a highstate from the console and watch it live; the stored view equals the live one', async (t) => {
  await page.goto(`${cluster.apiUrl}/ui/#/run`);
  await page.fill('input[name=tgt]', 'web*');
  await page.fill('input[name=fun]', 'state.apply');
  await shot('run');
  await page.click('button:has-text("Run")');
  await page.waitForSelector('#job-status');
  const jid = decodeURIComponent(page.url().split('#/job/')[1]!.split('?')[0]!);
  // the early states of both minions arrive while the job still runs (it waits at the gate)
  await page.waitForFunction(() => document.querySelectorAll('tr.state-row').length >= 12, undefined, { timeout: 30_000 });
  t.equal(await page.locator('#job-status').innerText(), 'running…', 'results shown while the job runs');
  t.match(await page.locator('#progress').innerText(), /^\d+ of 18 states$/, 'the states both compiles planned, while it runs');
  const live = await page.locator('tr.state-row').count();
  t.ok(live >= 12 && live < 18, `${live} states shown live before the gate opened`);
  await shot('job-live');
  writeFileSync(gate, '');
  await page.waitForSelector('#job-status:has-text("done")', { timeout: 30_000 });
  await page.waitForFunction(() => document.querySelectorAll('tr.state-row').length === 18);
  t.match(await page.locator('#summary').innerText(), /2\s*\/2 returned[\s\S]*18\s*states[\s\S]*2\s*failed/);
  t.equal(await page.locator('#progress').innerText(), '18 of 18 states');
  t.same(await page.locator('.progress progress').evaluate((p) => [(p as HTMLProgressElement).value, (p as HTMLProgressElement).max]), [18, 18]);
  highstateJid = jid;
  const liveView = await page.locator('main').innerText();

  // a failed state's details: its comment (markup, as text) and changes
  await page.click('tr.state-row[data-result="false"] >> nth=0');
  await page.waitForSelector('#state-detail');
  t.ok((await page.locator('#state-detail').innerText()).includes(XSS), 'the comment is shown as text');
  t.equal(await page.locator('main img[src=x]').count(), 0);
  t.equal(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss), undefined, 'the comment did not run');
  await shot('job-failed-state');

  // the same job opened afresh reads only the store
  await page.goto('about:blank');
  await page.goto(`${cluster.apiUrl}/ui/#/job/${jid}`);
  await page.waitForSelector('#job-status:has-text("done")');
  t.equal(await page.locator('main').innerText(), liveView, 'the stored view equals the live view');
  const r = await brine(['jobs', 'show', jid, '--config', cluster.masterConfig, '--out', 'json'], cluster.env);
  t.equal(r.code, 0, r.stderr);
  t.match(r.stdout, /web1/, 'and brine jobs show has it');

  // a fresh page: a change of the hash alone keeps the job view (with its jid) until the list renders
  await page.goto('about:blank');
  await page.goto(`${cluster.apiUrl}/ui/#/jobs?failed=1&user=console`);
  await page.waitForSelector(`tbody tr:has-text("${jid}")`);
  t.equal(await page.locator('tbody tr').count(), 1, 'failed jobs started from the console: this one');
  t.match(await page.locator(`tr:has-text("${jid}")`).innerText(), /state\.apply[\s\S]*console/, "the console is the job's user");
  await shot('jobs');
  // the minions page now shows each one's last highstate at a glance
  await page.goto(`${cluster.apiUrl}/ui/#/minions`);
  await page.waitForSelector('tr[data-minion="web1"] >> text=1 failed');
  t.match(await page.locator('tr[data-minion="db1"]').innerText(), /none/);
  await shot('minions');
});

t.test('a test=True run is marked as a dry run, with its arguments, on its page and in the jobs list', async (t) => {
  await page.goto(`${cluster.apiUrl}/ui/#/run`);
  await page.fill('input[name=tgt]', 'db1');
  await page.fill('input[name=fun]', 'state.apply');
  await page.fill('input[name=args]', 'site');
  await page.check('input[name=test]');
  await page.click('button:has-text("Run")');
  await page.waitForSelector('#job-status:has-text("done")', { timeout: 30_000 });
  const jid = decodeURIComponent(page.url().split('#/job/')[1]!.split('?')[0]!);
  t.equal(await page.locator('h1 .dry-run').innerText(), 'dry run');
  t.match(await page.locator('#main p').first().innerText(), /state\.apply site test=True on db1/);
  await readmeShot(page, 'job-dry-run');
  await page.goto(`${cluster.apiUrl}/ui/#/jobs`);
  const row = page.locator(`tbody tr:has-text("${jid}")`);
  await row.waitFor();
  t.match(await row.innerText(), /state\.apply site test=True\s*dry run/);
  t.equal(await page.locator(`tbody tr:has-text("${highstateJid}") .dry-run`).count(), 0, 'a real run is not marked');
});

t.test('a job that ends before the live stream is subscribed still reads done', async (t) => {
  // the page's event stream is held until the job has returned: no event of it reaches the page
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  await page.route('**/v1/events?*', async (route) => {
    await held;
    await route.continue();
  });
  t.teardown(() => page.unroute('**/v1/events?*'));
  const { jid } = await cluster.client.post<{ jid: string }>('/v1/jobs', { tgt: 'db1', fun: 'state.apply', arg: ['slow'], wait: false });
  await page.goto(`${cluster.apiUrl}/ui/#/job/${jid}`);
  await page.waitForSelector('#job-status:has-text("running")');
  writeFileSync(lateGate, '');
  await until(async () => ((await cluster.client.get<{ returns: Record<string, unknown> }>(`/v1/jobs/${jid}`)).returns.db1 ? true : undefined), 'db1 returned');
  release();
  await page.waitForSelector('#job-status:has-text("done")', { timeout: 30_000 });
  t.equal(await page.locator('tr.state-row').count(), 1, 'and its one state is shown');
});

t.test('at a phone width the job and jobs tables line up; progress reads x of N states', async (t) => {
  // a second window at a phone's width, with the same session
  const phoneContext = await browser.newContext({ viewport: { width: 390, height: 844 } });
  await phoneContext.addCookies(await page.context().cookies());
  const phone = await phoneContext.newPage();
  await phone.goto(`${cluster.apiUrl}/ui/#/job/${highstateJid}`);
  await phone.waitForSelector('#job-status:has-text("done")');
  const job = await columns(phone, 'tr.state-row');
  t.same(job.row, job.head, 'each visible cell sits under its header');
  t.notOk(job.overflow, 'no sideways scrolling');
  t.equal(await phone.locator('#progress').innerText(), '18 of 18 states');
  await phone.goto(`${cluster.apiUrl}/ui/#/jobs`);
  await phone.waitForSelector(`tbody tr:has-text("${highstateJid}")`);
  const jobs = await columns(phone, 'tbody tr');
  t.same(jobs.row, jobs.head, 'the jobs list lines up too');
  t.notOk(jobs.overflow);
  await readmeShot(phone, 'jobs-phone');
  await phoneContext.close();
});

t.test('a job link opened while signed out returns to that job after signing in', async (t) => {
  t.match(highstateJid, /^\d{20}$/, 'the highstate run above gave its jid');
  const fresh = await browser.newPage({ viewport: { width: 1200, height: 800 } });
  await fresh.goto(`${cluster.apiUrl}/ui/#/job/${highstateJid}`);
  await fresh.waitForSelector('form.login');
  await fresh.fill('input[name=token]', cluster.client.target.token);
  await fresh.click('form:has(input[name=token]) button[type=submit]');
  await fresh.waitForSelector(`h1:has-text("${highstateJid}")`);
  t.match(fresh.url(), `#/job/${highstateJid}`);
  await fresh.close();
});

t.test('the events page streams the bus live', async (t) => {
  await page.goto(`${cluster.apiUrl}/ui/#/events?tag=brine/job/*`);
  await page.waitForSelector('h1:has-text("Events")');
  // it says when it listens: events from then on are shown
  t.match(await page.locator('#events-status:has-text("Listening")').innerText(), /Listening for brine\/job\/\*/);
  const { jid } = await cluster.run('db1', 'test.ping');
  const row = page.locator('tbody tr', { has: page.locator('td.mono', { hasText: `brine/job/${jid}/ret/db1` }) });
  await row.waitFor();
  t.match(await row.locator('pre').innerText(), /"fun":"test\.ping".*"return":true/, 'the return of this job appeared in the stream, with its data');
  const tags = await page.locator('tbody tr td:nth-child(2)').allInnerTexts();
  t.ok(tags.length > 0 && tags.every((tag) => tag.startsWith('brine/job/')), `only tags the filter matches: ${tags.join(', ')}`);
  await shot('events');
});

t.test("an orchestration's job page links the job its step published, and that job links back", async (t) => {
  const { jid } = await cluster.client.post<{ jid: string }>('/v1/runner', { fun: 'state.orchestrate', arg: ['orch'], wait: true });
  await page.goto(`${cluster.apiUrl}/ui/#/job/${jid}`);
  const link = page.locator('a.child-job');
  await link.waitFor();
  const child = (await link.innerText()).replace(/^job /, '');
  t.match(child, /^\d{20}$/);
  await link.click();
  await page.waitForSelector(`h1:has-text("${child}")`);
  t.match(await page.locator('#main p').first().innerText(), new RegExp(`step of orchestration ${jid}`));
});

t.test('a minion id holding markup is refused before it could reach any page', async (t) => {
  const r = await brine(['minion', '--id', XSS, '--master', '127.0.0.1', '--config', cluster.minionConfigFile('web1')]);
  t.not(r.code, 0);
  t.match(r.stderr, /BRINE_ERR_MINION_CONFIG: .*is not a valid minion id/);
  const { minions } = await cluster.client.get<{ minions: Array<{ id: string }> }>('/v1/minions');
  t.notOk(
    minions.some((m) => m.id.includes('<')),
    'no such minion is known',
  );
});

t.test('a local user signs in with user and password; the audit page shows the sign-in under their name', async (t) => {
  const added = await brine(
    ['user', 'add', 'ops', '--password-stdin', '--config', cluster.masterConfig],
    { ...cluster.env, BRINE_API_TOKEN: cluster.client.target.token },
    'ops-password\n',
  );
  t.equal(added.code, 0, added.stderr);
  const p = await browser.newPage({ viewport: { width: 1200, height: 800 } });
  t.teardown(() => p.close());
  await p.goto(`${cluster.apiUrl}/ui/`);
  await p.fill('input[name=username]', 'ops');
  await p.fill('input[name=password]', 'wrong-password');
  await p.click('form:has(input[name=username]) button[type=submit]');
  await p.waitForSelector('text=Wrong user or password');
  await p.fill('input[name=password]', 'ops-password');
  await p.click('form:has(input[name=username]) button[type=submit]');
  await p.waitForSelector('h1:has-text("Minions")');
  await p.goto(`${cluster.apiUrl}/ui/#/audit?user=ops&action=signin`);
  await p.waitForSelector('h1:has-text("Audit trail")');
  const outcomes = await p.$$eval('tbody tr td:nth-child(6)', (tds) => tds.map((td) => td.textContent));
  t.same(outcomes, ['ok', 'refused 401'], 'the sign-in and the failed one, newest first');
});
