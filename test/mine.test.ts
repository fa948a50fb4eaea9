/**
 * The mine through a real master and two real minions: db1 has mine_functions in its pillar and
 * pushes their values after its welcome; web1's highstate renders a formula-like SLS that reads
 * them with mine.get (answered by the master from its store, never by a host); mine.delete,
 * mine.flush and mine.update on db1 change what the next render sees.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { Cluster } from './helpers/cluster.js';
import { writeTree } from './helpers/fleet-tree.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-mine-'));
const states = path.join(dir, 'states');
const pillar = path.join(dir, 'pillar');
writeTree(pillar, {
  'top.sls': "base:\n  'db1':\n    - mine\n  'web1':\n    - web\n",
  // pillar templates read the mine too (rendered on the compile workers, answered by the master)
  'web.sls': "db_roles: {{ salt['mine.get']('db*', 'db_role') | json }}\n",
  'mine.sls': `mine_functions:
  network.ip_addrs: []
  grains.item: [os, roles]
  db_role:
    - mine_function: grains.get
    - roles
`,
});
writeTree(states, {
  'top.sls': "base:\n  'web1':\n    - web\n",
  // the shape of a formula's map: the peers' facts gathered once, then used below
  'web/map.jinja': `{% set upstreams = salt['mine.get']('roles:db', 'network.ip_addrs', tgt_type='grain') %}
{% set facts = salt['mine.get']('db*', 'grains.item,db_role') %}
`,
  'web/init.sls': `{% from 'web/map.jinja' import upstreams, facts with context %}
{% if upstreams %}
{% for id, addrs in upstreams | dictsort %}
upstream-{{ id }}:
  test.succeed_without_changes:
    - comment: '{{ addrs | json }}'
{% endfor %}
{% else %}
no-upstream:
  test.succeed_without_changes: []
{% endif %}
facts:
  test.succeed_without_changes:
    - comment: '{{ facts | json }}'
pillar-view:
  test.succeed_without_changes:
    - comment: '{{ pillar.db_roles | json }}'
`,
});

const cluster = new Cluster({ master: { file_roots: { base: [states] }, pillar_roots: { base: [pillar] }, timeout: 30 } });

type Ran = Record<string, { __id__: string; comment: string; result: boolean }>;

/** web1's highstate: the ids it ran, and each one's comment. */
async function highstate(t: Test): Promise<Record<string, string>> {
  const r = await cluster.run('web1', 'state.apply', [], { timeout: 30 });
  const ret = r.returns.web1!;
  t.equal(ret.retcode, 0, 'the highstate succeeded', { got: ret.return });
  return Object.fromEntries(Object.values(ret.return as Ran).map((s) => [s.__id__, s.comment]));
}

async function call(t: Test, minion: string, fun: string, arg: unknown[] = [], kwarg: Record<string, unknown> = {}): Promise<unknown> {
  const r = await cluster.run(minion, fun, arg, { kwarg, timeout: 30 });
  t.equal(r.returns[minion]?.retcode, 0, `${minion} ${fun} succeeded`, { got: r.returns[minion]?.return });
  return r.returns[minion]!.return;
}

t.before(async () => {
  await cluster.startMaster();
  const db = cluster.startMinion('db1', { grains: { roles: ['db'] } });
  const pushed = db.waitEvent('mine_pushed', 30_000);
  await Promise.all([db.waitEvent('minion_ready'), cluster.startMinion('web1', { grains: { roles: ['web'] } }).waitEvent('minion_ready')]);
  await cluster.waitMinionsKnown(['db1', 'web1']);
  await pushed;
});
t.teardown(async () => {
  await cluster.close();
  rmSync(dir, { recursive: true, force: true });
});

t.test('a formula renders with the values db1 pushed at start; delete, flush and update change what it sees', async (t) => {
  const ips = await call(t, 'db1', 'network.ip_addrs');
  const items = await call(t, 'db1', 'grains.item', ['os', 'roles']);
  t.same(await call(t, 'web1', 'mine.get', ['*', 'network.ip_addrs']), { db1: ips }, 'mine.get from the command line, answered from the store');
  t.same(await call(t, 'web1', 'mine.get', ['web*', 'network.ip_addrs']), {}, 'a target whose minions pushed nothing');

  let seen = await highstate(t);
  t.same(JSON.parse(seen['upstream-db1']!), ips, "the grain target found db1's addresses");
  t.same(JSON.parse(seen.facts!), { 'grains.item': { db1: items }, db_role: { db1: ['db'] } }, 'several functions: by function; the alias under its name');
  t.same(JSON.parse(seen['pillar-view']!), { db1: ['db'] }, "web1's pillar read the mine");

  t.equal(await call(t, 'db1', 'mine.delete', ['network.ip_addrs']), true);
  seen = await highstate(t);
  t.same(Object.keys(seen).sort(), ['facts', 'no-upstream', 'pillar-view'], 'after mine.delete the formula renders its no-peer branch');

  t.equal(await call(t, 'db1', 'mine.flush'), true);
  seen = await highstate(t);
  t.same(JSON.parse(seen.facts!), {}, 'after mine.flush nothing is left');
  t.same(JSON.parse(seen['pillar-view']!), {}, 'in the pillar either');

  t.equal(await call(t, 'db1', 'mine.update'), true, 'mine.update pushes mine_functions again');
  t.equal(await call(t, 'web1', 'mine.send', ['web_role'], { mine_function: 'grains.get', key: 'roles' }), true, 'mine.send');
  t.same(await call(t, 'db1', 'mine.get', ['*', 'db_role,web_role']), { db_role: { db1: ['db'] }, web_role: { web1: ['web'] } });
  seen = await highstate(t);
  t.same(JSON.parse(seen['upstream-db1']!), ips);
  t.same(JSON.parse(seen['pillar-view']!), { db1: ['db'] });
  t.same(
    await call(t, 'web1', 'sys.list_functions', ['mine']),
    ['mine.delete', 'mine.flush', 'mine.get', 'mine.send', 'mine.update'],
    'sys.list_functions lists them',
  );
});
