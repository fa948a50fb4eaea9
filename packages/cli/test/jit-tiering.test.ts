/**
 * `brine local` turns Turbofan off while it compiles a big tree (thousands of IDs) and back on
 * after; a formula-sized tree never touches the flags. The flags' setter is a spy here: the
 * compile itself is real (files in a temp dir, the whole pipeline).
 */
import t, { type Test } from 'tap';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileFor } from '../src/local/compile.js';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { CompileTiering, tierFlagsGiven } from '../src/local/jit-tiering.js';
import { parseLocalOptions } from '../src/local/options.js';

function tree(files: number, perFile: number): string {
  const root = mkdtempSync(join(tmpdir(), 'brine-tiering-'));
  mkdirSync(join(root, 'gen'));
  writeFileSync(join(root, 'top.sls'), "base:\n  '*':\n    - gen.*\n");
  for (let f = 0; f < files; f++) {
    let text = '';
    for (let i = 0; i < perFile; i++) text += `s_${f}_${i}:\n  test.succeed_without_changes: []\n`;
    writeFileSync(join(root, 'gen', `f${f}.sls`), text);
  }
  return root;
}

async function flagsOfCompile(t: Test, files: number, perFile: number, threshold: number): Promise<{ flags: string[]; states: number }> {
  const root = tree(files, perFile);
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const opts = await parseLocalOptions(['state.show_lowstate', '--file-root', root, '--id', 'anchor'], root, {});
  const flags: string[] = [];
  const c = await compileFor(opts, 'highstate', false, undefined, new CompileTiering(threshold, (f) => flags.push(f)));
  return { flags, states: c.low.length };
}

t.test('a compile past the threshold runs without Turbofan, and turns it back on after', async (t) => {
  const { flags, states } = await flagsOfCompile(t, 5, 10, 20);
  t.equal(states, 50);
  t.same(flags, ['--no-turbofan', '--turbofan']);
});

t.test('a compile under the threshold leaves the flags alone', async (t) => {
  const { flags, states } = await flagsOfCompile(t, 1, 10, 20);
  t.equal(states, 10);
  t.same(flags, []);
});

t.test('the default threshold is above a formula and below the 10,000-state bench', async (t) => {
  const flags: string[] = [];
  const tiering = new CompileTiering(undefined, (f) => flags.push(f));
  for (let i = 0; i < 5; i++) tiering.rendered(Object.fromEntries(Array.from({ length: 100 }, (_, j) => [`s${i}_${j}`, {}])));
  t.same(flags, [], '500 IDs');
  for (let i = 0; i < 95; i++) tiering.rendered(Object.fromEntries(Array.from({ length: 100 }, (_, j) => [`t${i}_${j}`, {}])));
  tiering.done();
  t.same(flags, ['--no-turbofan', '--turbofan'], '10,000 IDs');
});

t.test("Node's own tier flags are left to decide", async (t) => {
  t.ok(tierFlagsGiven(['--jitless'], ''));
  t.ok(tierFlagsGiven([], '--max-old-space-size=100 --no-turbofan'));
  t.ok(tierFlagsGiven(['--no-opt'], ''));
  t.ok(tierFlagsGiven(['--always-sparkplug'], ''));
  t.notOk(tierFlagsGiven(['--snapshot-blob', '/x/node-v24.blob', '--enable-source-maps'], '--max-old-space-size=100'));
  const flags: string[] = [];
  const tiering = new CompileTiering(20, (f) => flags.push(f), true);
  tiering.rendered(Object.fromEntries(Array.from({ length: 100 }, (_, j) => [`s${j}`, {}])));
  tiering.done();
  t.same(flags, []);
});

t.test('an apply of a big tree under node --jitless runs to the end (Turbofan switched on there crashes V8)', async (t) => {
  const root = tree(6, 100);
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const bin = fileURLToPath(new URL('../dist/bin.js', import.meta.url));
  const r = spawnSync(process.execPath, ['--jitless', bin, 'local', 'state.apply', '--file-root', root, '--id', 'anchor', '--out', 'json'], {
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  });
  t.equal(r.signal, null, r.stderr);
  t.equal(r.status, 0, r.stderr);
  t.equal(Object.keys((JSON.parse(r.stdout) as { local: object }).local).length, 600);
});
