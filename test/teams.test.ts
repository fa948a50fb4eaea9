import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { chromium } from 'playwright-core';
import { MasterClient } from '@brine/master';
import { Cluster } from './helpers/cluster.js';
import { brine } from './helpers/proc.js';
import { slapdMissing, startSlapd, type SlapdServer } from './support/slapd.js';

/**
 * Teams (issue 27) end to end: a real OpenLDAP server (Debian's slapd in a temp dir), a real
 * master with Salt's external_auth, two minions. An LDAP user of group web-team may run states on
 * web* and nothing on db1, from the CLI, the API and the console (Chromium); a local user's token expires and a revoked
 * one is refused at once; the audit trail names the user for the run and the refusal.
 */
const missing = slapdMissing();
if (missing) {
  t.fail(missing);
  t.end();
} else {
  let ldap: SlapdServer;
  let c: Cluster;
  t.before(async () => {
    ldap = await startSlapd([
      { uid: 'bob', password: 'bob-ldap-secret', groups: ['web-team'] },
      { uid: 'dan', password: 'dan-ldap-secret', groups: ['db-team'] },
    ]);
    c = new Cluster({
      minions: ['web1', 'db1'],
      master: {
        file_roots: { base: [path.join(process.cwd(), '.teams-unused')] },
        external_auth: {
          ldap: { 'web-team%': [{ 'web*': ['state.*', 'test.*'] }] },
          local: { carol: [{ '*': ['test.*'] }] },
        },
        'auth.ldap.server': '127.0.0.1',
        'auth.ldap.port': ldap.port,
        'auth.ldap.basedn': ldap.basedn,
        'auth.ldap.binddn': `uid={{ username }},ou=People,${ldap.basedn}`,
      },
    });
    const tree = path.join(c.dir, 'states');
    mkdirSync(tree);
    writeFileSync(path.join(tree, 'web.sls'), 'deployed:\n  test.succeed_with_changes:\n    - name: web deployed\n');
    c.setMasterOptions({ file_roots: { base: [tree] } });
    await c.start();
  });
  t.teardown(async () => {
    await c?.close();
    await ldap?.stop();
  });

  const as = (token: string) => new MasterClient({ url: c.apiUrl, token });
  const cli = (args: string[], token: string, input?: string) => brine([...args, '--config', c.masterConfig], { ...c.env, BRINE_API_TOKEN: token }, input);

  t.test('an LDAP user of web-team runs state.apply on web* and is refused cmd.run on db1: CLI and API', async (t) => {
    const created = await cli(['token', 'create', '--user', 'bob', '--eauth', 'ldap', '--password-stdin', '--ttl', '1h'], '', 'bob-ldap-secret\n');
    t.equal(created.code, 0, created.stderr);
    const token = created.stdout.trim();
    t.match(token, /^brn_/);
    t.match(created.stderr, /for bob \(ldap\)/);

    const ran = await cli(['run', 'web*', 'state.apply', 'web'], token);
    t.equal(ran.code, 0, ran.stderr);
    t.match(ran.stdout, /web1/);
    t.notMatch(ran.stdout, /db1/);
    const refused = await cli(['run', 'db1', 'cmd.run', 'echo hi'], token);
    t.not(refused.code, 0);
    t.match(refused.stderr, /BRINE_ERR_MASTER_FORBIDDEN/);
    t.match(refused.stderr, /user bob \(ldap\) may not run cmd\.run on db1/);

    const wrong = await as('none')
      .post('/v1/login', { username: 'bob', password: 'not-his', eauth: 'ldap' })
      .then(
        () => 'accepted',
        (e: { code: string }) => e.code,
      );
    t.equal(wrong, 'BRINE_ERR_MASTER_BAD_LOGIN', 'a wrong LDAP password');
    const dan = await as('none')
      .post('/v1/login', { username: 'dan', password: 'dan-ldap-secret', eauth: 'ldap' })
      .then(
        () => 'accepted',
        (e: { code: string }) => e.code,
      );
    t.equal(dan, 'BRINE_ERR_MASTER_BAD_LOGIN', 'a directory user whose groups have no permissions');

    const api = as((await as('none').post<{ token: string }>('/v1/login', { username: 'bob', password: 'bob-ldap-secret', eauth: 'ldap' })).token);
    const job = await api.post<{ returns: Record<string, { success: boolean }> }>('/v1/jobs', { tgt: 'web*', fun: 'state.apply', arg: ['web'], wait: true });
    t.same(Object.keys(job.returns), ['web1']);
    t.equal(job.returns.web1!.success, true);
    await t.rejects(api.post('/v1/jobs', { tgt: 'db1', fun: 'cmd.run', arg: ['echo hi'] }), {
      code: 'BRINE_ERR_MASTER_FORBIDDEN',
      message: /may not run cmd\.run on db1: the permission missing is 'cmd\.run' on a target matching db1/,
    });
    await t.rejects(api.post('/v1/jobs', { tgt: '*', fun: 'test.ping' }), { code: 'BRINE_ERR_MASTER_FORBIDDEN' }, 'a target reaching db1');
    const { minions } = await api.get<{ minions: Array<{ id: string }> }>('/v1/minions');
    t.same(
      minions.map((m) => m.id),
      ['web1'],
      'the minion list shows only what bob may target',
    );
    await t.rejects(api.get('/v1/keys'), { code: 'BRINE_ERR_MASTER_FORBIDDEN', message: /@wheel/ });
  });

  t.test('the same from the console (Chromium): bob signs in with his directory password, runs state.apply on web*, is refused cmd.run on db1', async (t) => {
    const browser = await chromium.launch({
      executablePath: process.env.BRINE_CHROMIUM ?? '/usr/bin/chromium',
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update'],
    });
    t.teardown(() => browser.close());
    const page = await browser.newPage({ viewport: { width: 1200, height: 800 } });
    await page.goto(`${c.apiUrl}/ui/#/run`);
    await page.fill('input[name=username]', 'bob');
    await page.fill('input[name=password]', 'bob-ldap-secret');
    await page.click('form:has(input[name=username]) button[type=submit]');
    await page.waitForSelector('input[name=tgt]');
    t.same(await page.$$eval('nav a', (as) => as.length > 0), true, 'signed in');
    await page.fill('input[name=tgt]', 'web*');
    await page.fill('input[name=fun]', 'state.apply');
    await page.fill('input[name=args]', 'web');
    await page.click('button:has-text("Run")');
    // the page follows the job live: bob's stream carries the events of the jobs he may see
    await page.waitForSelector('#job-status:has-text("done")', { timeout: 30_000 });
    t.ok(await page.locator('tr.state-row').count(), "web1's states shown");
    await page.goto(`${c.apiUrl}/ui/#/run`);
    await page.fill('input[name=tgt]', 'db1');
    await page.fill('input[name=fun]', 'cmd.run');
    await page.fill('input[name=args]', '"echo hi"');
    await page.click('button:has-text("Run")');
    await page.waitForSelector('.error:has-text("may not run cmd.run on db1")');
    t.match(await page.locator('.error').innerText(), /the permission missing is 'cmd\.run' on a target matching db1/);
  });

  t.test("a local user's token expires and is refused; a revoked token is refused at once", async (t) => {
    const added = await cli(['user', 'add', 'carol', '--password-stdin'], c.client.target.token, 'carol-password\n');
    t.equal(added.code, 0, added.stderr);
    const short = await cli(['token', 'create', '--user', 'carol', '--password-stdin', '--ttl', '1s'], '', 'carol-password\n');
    t.equal(short.code, 0, short.stderr);
    const carol = as(short.stdout.trim());
    // waited on by checking the refusal in a loop bounded by a deadline, not a sleep
    const deadline = Date.now() + 15_000;
    let code = '';
    while (Date.now() < deadline && code !== 'BRINE_ERR_MASTER_UNAUTHORIZED') {
      code = await carol.get('/v1/whoami').then(
        () => 'ok',
        (e: { code: string }) => e.code,
      );
    }
    t.equal(code, 'BRINE_ERR_MASTER_UNAUTHORIZED', 'the expired token is refused');

    const long = await cli(['token', 'create', '--user', 'carol', '--password-stdin', '--ttl', '1h', '--json'], '', 'carol-password\n');
    const { token, id } = JSON.parse(long.stdout) as { token: string; id: string };
    t.equal((await cli(['run', 'web1', 'test.ping'], token)).code, 0, 'carol may test.ping');
    const listed = await cli(['token', 'list'], token);
    t.match(listed.stdout, new RegExp(`${id}\\s+carol\\s+local\\s+valid`));
    const revoked = await cli(['token', 'revoke', id], token);
    t.equal(revoked.code, 0, revoked.stderr);
    const after = await cli(['run', 'web1', 'test.ping'], token);
    t.not(after.code, 0);
    t.match(after.stderr, /BRINE_ERR_MASTER_UNAUTHORIZED/, 'refused at once');
  });

  t.test("the audit trail has bob's run and refusal, carol's token changes, with names and sources", async (t) => {
    const r = await cli(['audit', '--user', 'bob', '--action', 'job', '--json'], c.client.target.token);
    t.equal(r.code, 0, r.stderr);
    const rows = JSON.parse(r.stdout) as Array<{
      username: string;
      action: string;
      target: string;
      outcome: string;
      source: string;
      args: { fun?: string; jid?: string };
    }>;
    const ok = rows.find((a) => a.outcome === 'ok' && a.args.fun === 'state.apply');
    t.ok(ok, 'the successful run');
    t.equal(ok?.target, 'web*');
    t.match(ok?.args.jid, /^\d{20}$/, 'with its jid');
    const no = rows.find((a) => a.args.fun === 'cmd.run');
    t.equal(no?.target, 'db1');
    t.match(no?.outcome, /^refused 403: missing 'cmd\.run' on a target matching db1/);
    t.ok(rows.every((a) => a.username === 'bob' && a.source === '127.0.0.1'));
    const text = await cli(['audit', '--user', 'carol', '--since', '1h'], c.client.target.token);
    t.match(text.stdout, /carol\s+127\.0\.0\.1\s+token\.revoke/);
    t.match(text.stdout, /carol\s+127\.0\.0\.1\s+signin/);
    t.notMatch(text.stdout + r.stdout, /carol-password|bob-ldap-secret|brn_/, 'no secrets in the trail');
  });
}
