import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { Cluster } from './helpers/cluster.js';

const pillarDir = mkdtempSync(path.join(os.tmpdir(), 'brine-pillar-'));
writeFileSync(path.join(pillarDir, 'secrets.sls'), 'db_password: hunter2\n');
// p1 says it is a db server: only its id is proven
const cluster = new Cluster({
  minions: ['p1'],
  minionConfig: () => ({ grains: { role: 'db' } }),
  master: { pillar_roots: { base: [pillarDir] }, pillar_safe_matchers_only: true },
});
t.before(() => cluster.start());
t.teardown(async () => {
  await cluster.close();
  rmSync(pillarDir, { recursive: true, force: true });
});

const top = (body: string) => writeFileSync(path.join(pillarDir, 'top.sls'), body);

t.test('with pillar_safe_matchers_only, id targets give pillar', async (t) => {
  top("base:\n  'p*':\n    - secrets\n  p1:\n    - match: glob\n    - secrets\n  'L@p1,p2':\n    - secrets\n");
  const r = await cluster.run('p1', 'pillar.items');
  t.match(r.returns.p1, { success: true, return: { db_password: 'hunter2' } });
});

t.test('with pillar_safe_matchers_only, grain, pillar and compound grain targets are refused at their target line', async (t) => {
  const file = path.join(pillarDir, 'top.sls');
  const cases: Array<[string, number, RegExp]> = [
    ["base:\n  'role:db':\n    - match: grain\n    - secrets\n", 2, /targets by match: grain/],
    ["base:\n  '*':\n    - secrets\n  'G@role:db and p*':\n    - secrets\n", 4, /targets by G@ in a compound target/],
    ["base:\n  'x:y':\n    - match: pillar\n    - secrets\n", 2, /targets by match: pillar/],
    ["base:\n{% if grains['role'] == 'db' %}\n  '*':\n    - secrets\n{% endif %}\n", 2, /a template reading grains/],
    // past the old text check: a compound term with its own delimiter, a tag over two lines
    ["base:\n  'G|@role|db':\n    - secrets\n", 2, /targets by G@ in a compound target/],
    ["{% if\n    grains['role'] == 'db' %}\nbase:\n  '*':\n    - secrets\n{% endif %}\n", 2, /a template reading grains/],
  ];
  for (const [body, line, what] of cases) {
    top(body);
    const r = await cluster.run('p1', 'pillar.items');
    const text = JSON.stringify(r.returns.p1);
    t.equal(r.returns.p1?.success, false, body);
    t.match(text, 'BRINE_ERR_MASTER_PILLAR_UNSAFE_MATCHER', body);
    t.match(text, `${file}:${line}:`, body);
    t.match(text, what, body);
    t.notMatch(text, 'hunter2', 'no secret leaks');
  }
});
