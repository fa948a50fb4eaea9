import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { Cluster } from './helpers/cluster.js';
import { writeTree } from './helpers/fleet-tree.js';
import { until } from './helpers/proc.js';
import { RawClient } from './helpers/raw-client.js';
import { rawSession } from './helpers/raw-session.js';

/**
 * What one minion can make the master do (issue 20, items 2 and 3): flood the file server, send
 * grains nested thousands of levels deep, or carry a grain a backtracking regex target chokes
 * on. After each, another minion's highstate completes and the API answers.
 */
const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-hostile-'));
const states = path.join(dir, 'states');
const out = path.join(dir, 'out');
// 5,000 small files: a tree a walk per request makes slow
const tree: Record<string, string> = {
  'top.sls': "base:\n  '*':\n    - web\n",
  'web.sls': `motd:\n  file.managed:\n    - name: ${out}-{{ grains['id'] }}.txt\n    - source: salt://files/d00/f000.txt\n`,
};
for (let d = 0; d < 50; d++) for (let f = 0; f < 100; f++) tree[`files/d${String(d).padStart(2, '0')}/f${String(f).padStart(3, '0')}.txt`] = `file ${d}/${f}\n`;
writeTree(states, tree);

const LONG = 'a'.repeat(35) + '!';
const cluster = new Cluster({
  minions: ['victim', 'longname'],
  master: { file_roots: { base: [states] }, compile_workers: 2, timeout: 90 },
  minionConfig: (id) => (id === 'longname' ? { grains: { fqdn: LONG } } : {}),
});
t.before(() => cluster.start());
t.teardown(async () => {
  await cluster.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A raw authenticated session of `minion` (autosigned), to send what a real minion never would. */
const authenticated = (minion: string) => rawSession(cluster.port, minion);

/** The victim's highstate completes, managing a file it fetched from the file server. */
async function victimHighstate(t: Test): Promise<void> {
  const r = await cluster.run('victim', 'state.apply', [], { timeout: 90 });
  t.equal(r.returns.victim?.retcode, 0, "another minion's highstate completes");
  t.equal(readFileSync(`${out}-victim.txt`, 'utf8'), 'file 0/0\n');
  rmSync(`${out}-victim.txt`);
}

/** The replies (res or error) to the requests `r0`..`r<n-1>`, once all have come. */
function replies(c: RawClient, n: number): Promise<Array<Record<string, unknown>>> {
  return until(
    () => {
      const got = c.inbox.filter((m) => (m.type === 'res' || m.type === 'error') && typeof m.ref === 'string' && /^r\d+$/.test(m.ref));
      return got.length >= n ? got : undefined;
    },
    `${n} replies`,
    120_000,
  );
}

t.test('a flood of file requests with made-up jids is answered or refused; the master serves everyone else', async (t) => {
  const c = await authenticated('flooder');
  const N = 1000;
  for (let i = 0; i < N; i++) {
    const jid = `2019${String(i).padStart(16, '0')}`;
    const args =
      i % 10 === 9 ? { prefix: 'files/d01', jid } : { path: `files/d${String(i % 50).padStart(2, '0')}/f${String(i % 100).padStart(3, '0')}.txt`, jid };
    c.send({ v: 1, type: 'req', id: `r${i}`, op: i % 10 === 9 ? 'file.list' : 'file.get', args });
  }
  // while the flood is served, the API answers and another minion's highstate completes
  const minions = await cluster.client.get<{ minions: unknown[] }>('/v1/minions');
  t.ok(minions.minions.length >= 2, 'the API answers');
  await victimHighstate(t);
  const got = await replies(c, N);
  const answered = got.filter((m) => m.type === 'res');
  const refused = got.filter((m) => m.type === 'error');
  t.equal(answered.length + refused.length, N, 'every request has its reply');
  t.ok(answered.length > 0, `${answered.length} answered`);
  t.ok(refused.length > 0, `${refused.length} refused: outstanding requests per session are bounded`);
  t.same([...new Set(refused.map((m) => m.code))], ['BRINE_ERR_MASTER_BUSY']);
  t.match(refused[0]!.message, /64 requests/);
  const one = answered.find((m) => (m.data as { path?: string } | null)?.path === 'files/d00/f000.txt');
  t.match(one?.data, { hash: /^[0-9a-f]{64}$/, size: 9 });
  c.ws.close();
});

t.test('a jid the minion is not part of does not pin a snapshot: it gets the tree as it is', async (t) => {
  const c = await authenticated('pinner');
  const jid = '20190000000000000777';
  const file = path.join(states, 'files/d49/f099.txt');
  const ask = async (id: string) => {
    c.send({ v: 1, type: 'req', id, op: 'file.get', args: { path: 'files/d49/f099.txt', jid } });
    const m = await until(() => c.inbox.find((x) => x.ref === id), `reply ${id}`);
    return Buffer.from((m.data as { data: string }).data, 'base64').toString();
  };
  t.equal(await ask('p1'), 'file 49/99\n');
  writeFileSync(file, 'changed\n');
  t.equal(await ask('p2'), 'changed\n', 'the made-up jid does not keep the old tree');
  writeFileSync(file, 'file 49/99\n');
  c.ws.close();
});

t.test('grains nested thousands of levels deep are refused with a coded error; compiles go on', async (t) => {
  const c = await authenticated('deepgrains');
  // the attack of issue 20: ~4,500 levels in 27 KB
  c.send(`{"v":1,"type":"grains","running":[],"grains":{"os":"Debian","x":${'['.repeat(4500)}${']'.repeat(4500)}}}`);
  t.match(await c.next('error'), { code: 'BRINE_ERR_PROTO_TOO_DEEP', message: /'grains' is nested more than 64 levels deep/ });
  // the session is still heard, and its compiles run on the grains the master has (none of those)
  for (const id of ['q1', 'q2']) c.send({ v: 1, type: 'req', id, op: 'pillar.items', args: {} });
  for (const id of ['q1', 'q2']) t.match(await until(() => c.inbox.find((m) => m.ref === id), id), { type: 'res', data: { pillar: {} } });
  const stored = await cluster.client.get<{ minions: Array<{ id: string; grains: Record<string, unknown> }> }>('/v1/minions');
  t.notOk(stored.minions.find((m) => m.id === 'deepgrains')?.grains.x, 'the deep grains are not kept');
  await victimHighstate(t);
  await victimHighstate(t);
  c.ws.close();
});

t.test('a backtracking regex target over a long grain answers at once', async (t) => {
  const run = await cluster.brine(['run', '-P', 'fqdn:^(a+)+$', 'test.ping']);
  t.not(run.code, 0);
  t.match(run.stderr + run.stdout, /BRINE_ERR_MASTER_NO_MINIONS|no minions matched/);
  const hit = await cluster.run('fqdn:^(a+)+!$', 'test.ping', [], { tgt_type: 'grain_pcre' });
  t.same(Object.keys(hit.returns), ['longname'], 'a pattern that matches still matches');
  const compound = await cluster.client
    .post<{ code?: string }>('/v1/jobs', { tgt: 'E@^(a+)+$ or P@fqdn:^(a+)+$', tgt_type: 'compound', fun: 'test.ping' })
    .catch((e: { code: string }) => e);
  t.equal(compound.code, 'BRINE_ERR_MASTER_NO_MINIONS');
  const refused = await cluster.client
    .post('/v1/jobs', { tgt: 'fqdn:(a)\\1', tgt_type: 'grain_pcre', fun: 'test.ping' })
    .catch((e: { code: string; message: string }) => e);
  t.match(refused, { code: 'BRINE_ERR_COMPILE_BAD_TARGET', message: /backreferences/ });
  await victimHighstate(t);
});
