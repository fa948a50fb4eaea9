import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { brine } from './helpers/proc.js';

/**
 * `brine local` renders a tree's `#!mjs` SLS files (the operator's own tree, as salt-call --local
 * runs #!py), each in a confined process: the states it returns run, requisites and all; one that
 * reads a file fails its compile with why.
 */
const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-local-mjs-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
writeFileSync(path.join(dir, 'top.sls'), "base:\n  '*':\n    - app\n");

t.test('the states a module returns run', async (t) => {
  writeFileSync(
    path.join(dir, 'app.sls'),
    "#!mjs\nexport default ({ id, sls }) => ({\n  greet: { 'test.succeed_with_changes': [{ name: `hello ${id} from ${sls}` }] },\n  after: { 'test.nop': [{ require: [{ test: 'greet' }] }] },\n});\n",
  );
  const r = await brine(['local', 'state.apply', '--file-root', dir, '--id', 'anchor', '--out', 'json']);
  t.equal(r.code, 0, r.stderr);
  const ret = JSON.parse(r.stdout).local as Record<string, { name: string; result: boolean; __run_num__: number }>;
  t.same(
    Object.values(ret)
      .sort((a, b) => a.__run_num__ - b.__run_num__)
      .map((s) => [s.name, s.result]),
    [
      ['hello anchor from app', true],
      ['after', true],
    ],
  );
});

t.test('a module that reads a file fails the compile, naming the file and why', async (t) => {
  writeFileSync(
    path.join(dir, 'app.sls'),
    "#!mjs\nimport fs from 'node:fs';\nexport default () => ({ x: { 'test.nop': [{ name: fs.readFileSync('/etc/hostname', 'utf8') }] } });\n",
  );
  const r = await brine(['local', 'state.show_lowstate', '--file-root', dir, '--id', 'anchor']);
  t.not(r.code, 0);
  t.match(r.stdout + r.stderr, /app\.sls.*BRINE_ERR_COMPILE_MJS.*(ERR_ACCESS_DENIED|Access to this API has been restricted)/);
});
