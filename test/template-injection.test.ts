import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { Cluster } from './helpers/cluster.js';
import { writeTree } from './helpers/fleet-tree.js';

/**
 * The reported escape, end to end: an SLS file and a pillar file that try to run a command on the
 * master and read its API token. Both compiles fail with a template error, nothing runs, the
 * token appears in no return, and another minion's highstate completes.
 */
const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-injection-'));
const marker = path.join(dir, 'pwned');
const states = path.join(dir, 'states');
const pillar = path.join(dir, 'pillar');
const run = (cmd: string) => `range.constructor('return process.getBuiltinModule("child_process").execSync("${cmd}").toString()')()`;
const cluster = new Cluster({
  minions: ['i1', 'i2'],
  master: { file_roots: { base: [states] }, pillar_roots: { base: [pillar] }, timeout: 60 },
});
writeTree(states, {
  'top.sls': "base:\n  '*':\n    - fine\n  'i2':\n    - leak\n",
  'leak.sls': "leak-{{ salt['pillar.get']('token', 'none') }}:\n  test.nop\n",
  'fine.sls': 'fine:\n  test.succeed_without_changes\n',
  'attack.sls': `id-{{ ${run(`touch ${marker}; id`)} }}:\n  test.nop\n`,
  'steal.sls': `{% set tok = ''.constructor.constructor('return process.getBuiltinModule("fs").readdirSync("/").join()')() %}\nlisted-{{ tok }}:\n  test.nop\n`,
});
const tokenFile = path.join(cluster.dir, 'master', 'api_token');
const steal = `range.constructor('return process.getBuiltinModule("fs").readFileSync("${tokenFile}", "utf8")')()`;
writeTree(pillar, {
  'top.sls': "base:\n  'i2':\n    - evil\n",
  'evil.sls': `secret: {{ ${run(`touch ${marker}`)} }}\ntoken: {{ ${steal} }}\n`,
});
t.before(() => cluster.start());
t.teardown(async () => {
  await cluster.close();
  rmSync(dir, { recursive: true, force: true });
});

t.test('an SLS file cannot run code on the master', async (t) => {
  for (const sls of ['attack', 'steal']) {
    const r = await cluster.run('i1', 'state.sls', [sls], { timeout: 60 });
    t.not(r.returns.i1!.retcode, 0, `${sls}: the compile fails`);
    t.match(JSON.stringify(r.returns.i1!.return), /BRINE_ERR_COMPILE_TEMPLATE/);
  }
  t.notOk(existsSync(marker), 'no command ran');
});

t.test('a pillar file cannot either, and the token stays secret', async (t) => {
  const r = await cluster.run('i2', 'state.apply', [], { timeout: 60 });
  const text = JSON.stringify(r.returns.i2!.return);
  t.notOk(existsSync(marker), 'no command ran');
  const token = readFileSync(tokenFile, 'utf8').trim();
  t.notOk(text.includes(token), 'the API token is in no return');
  const fine = await cluster.run('i1', 'state.apply', [], { timeout: 60 });
  t.equal(fine.returns.i1!.retcode, 0, "another minion's highstate completes");
});
