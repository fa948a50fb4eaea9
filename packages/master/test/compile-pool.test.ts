import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createLogger } from '@brine/core';
import t from 'tap';
import { CompilePool } from '../src/compile-pool.js';
import { workerLaunch } from '../src/compile-worker-launch.js';
import { MASTER_DEFAULTS, type MasterConfig } from '../src/config.js';
import { loadMasterTops } from '../src/master-tops.js';
import { StateService } from '../src/state-service.js';

/**
 * The compile workers are processes under Node's permission model: they read Brine's code and
 * nothing else (the master ships them the trees), write nothing, start nothing. Data that cannot
 * cross to a worker or back fails only its own compile.
 */
const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-pool-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const dataDir = path.join(dir, 'data');
const states = path.join(dir, 'states');
const pillar = path.join(dir, 'pillar');
mkdirSync(path.join(dataDir, 'pki'), { recursive: true });
writeFileSync(path.join(dataDir, 'api_token'), 'the-secret-token\n');
mkdirSync(states);
mkdirSync(pillar);
writeFileSync(path.join(states, 'top.sls'), "base:\n  '*':\n    - one\n");
writeFileSync(path.join(states, 'one.sls'), 'one:\n  test.nop:\n    - name: {{ grains.os }}-{{ pillar.colour }}\n');
writeFileSync(path.join(pillar, 'top.sls'), "base:\n  '*':\n    - colour\n");
writeFileSync(path.join(pillar, 'colour.sls'), 'colour: blue\n');
// a symlink in a file root to the master's secrets: the master does not serve it, and a
// worker whose template escaped its sandbox cannot read it either
symlinkSync(path.join(dataDir, 'api_token'), path.join(states, 'token'));

const config = {
  ...MASTER_DEFAULTS,
  data_dir: dataDir,
  pki_dir: path.join(dataDir, 'pki'),
  token_file: path.join(dataDir, 'api_token'),
  file_roots: { base: [states] },
  pillar_roots: { base: [pillar] },
  compile_workers: 1,
  render_timeout: 10,
} as MasterConfig;
const log = createLogger({ level: 'silent' });

async function service(t: { teardown(fn: () => unknown): void }): Promise<{ states: StateService; pool: CompilePool }> {
  const s = new StateService(config, await loadMasterTops(config.master_tops, config.master_tops_dirs), log);
  const pool = new CompilePool(config, log, 1);
  t.teardown(() => pool.close());
  s.usePool(pool);
  return { states: s, pool };
}

function deep(n: number): Record<string, unknown> {
  let o: Record<string, unknown> = { leaf: 1 };
  for (let i = 0; i < n; i++) o = { a: o };
  return o;
}

t.test('a worker reports the restrictions it runs under, and compiles with the trees the master ships', async (t) => {
  const { states, pool } = await service(t);
  const [c] = await pool.started();
  t.ok(c!.permission, 'the permission model is on');
  t.notOk(c!.child, 'no child processes');
  t.notOk(c!.worker, 'no worker threads');
  t.notOk(c!.write, 'no writes anywhere');
  t.same(c!.readable, { [dataDir]: false, [config.pki_dir]: false, [config.token_file]: false }, 'data_dir, pki_dir and the token are off limits');
  const r = await states.compile('m1', { os: 'Debian' }, { mode: 'highstate' });
  t.notOk(r.failed, r.errors.join('\n'));
  t.same(
    r.low.map((c) => c.name),
    ['Debian-blue'],
    'the state and pillar trees reached the worker',
  );
});

t.test('a process started as the pool starts its workers cannot run commands, read data_dir, follow a symlink to it, or write', async (t) => {
  const launch = workerLaunch(config);
  t.notOk(
    launch.execArgv.some((a) => a.includes(dataDir) || a.includes(states) || a.includes(pillar)),
    'no root or data dir is readable',
  );
  for (const bad of ['--allow-child-process', '--allow-worker', '--allow-fs-write', '--allow-addons', '--allow-wasi', '--allow-inspector'])
    t.notOk(
      launch.execArgv.some((a) => a.startsWith(bad)),
      `no ${bad}`,
    );
  // the payload an escaped template would run, under the workers' very flags
  const probe = path.join(path.dirname(launch.entry), `probe-${process.pid}.mjs`);
  writeFileSync(
    probe,
    `const out = {};
const tries = {
  exec: () => process.getBuiltinModule('child_process').execSync('id'),
  token: () => process.getBuiltinModule('fs').readFileSync(${JSON.stringify(config.token_file)}, 'utf8'),
  symlink: () => process.getBuiltinModule('fs').readFileSync(${JSON.stringify(path.join(states, 'token'))}, 'utf8'),
  root: () => process.getBuiltinModule('fs').readdirSync(${JSON.stringify(states)}),
  write: () => process.getBuiltinModule('fs').writeFileSync(${JSON.stringify(path.join(dir, 'written'))}, 'x'),
  sqlite: () => new (process.getBuiltinModule('node:sqlite').DatabaseSync)(${JSON.stringify(path.join(dataDir, 'master.db'))}),
};
for (const [k, f] of Object.entries(tries)) {
  try { f(); out[k] = 'allowed'; } catch (e) { out[k] = e.code ?? e.name; }
}
console.log(JSON.stringify(out));
`,
  );
  t.teardown(() => rmSync(probe, { force: true }));
  const child = spawn(process.execPath, [...launch.execArgv, probe], { env: launch.env, stdio: ['ignore', 'pipe', 'inherit'] });
  let stdout = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  await new Promise((resolve) => child.on('close', resolve));
  const got = JSON.parse(stdout) as Record<string, string>;
  for (const k of ['exec', 'token', 'symlink', 'root', 'write']) t.equal(got[k], 'ERR_ACCESS_DENIED', `${k} is refused`);
  t.equal(got.sqlite, 'TypeError', 'node:sqlite (which the permission model does not guard) is not there');
});

t.test('grains too deep to cross to a worker fail only that compile; the pool goes on', async (t) => {
  // straight to the pool: the state service's own JSON of such grains is the protocol's to refuse
  const { states, pool } = await service(t);
  const snap = states.pillars.snapshot();
  for (const depth of [4500, 2500]) {
    const err = await pool.pillar(`deep${depth}`, { os: 'Debian', deep: deep(depth) }, {}, snap).then(
      () => undefined,
      (e: Error & { code?: string }) => e,
    );
    t.equal(err?.code, 'BRINE_ERR_MASTER_COMPILE_TRANSFER', `${depth} deep: that compile fails with its code`);
    t.match(err?.message, new RegExp(`minion deep${depth}: the pillar`), 'naming the minion and what');
  }
  const ok = await states.compile('m2', { os: 'Debian' }, { mode: 'highstate' });
  t.notOk(ok.failed, `a later compile succeeds: ${ok.errors.join('\n')}`);
});

t.test('a result too deep to come back from a worker fails only that compile; the pool goes on', async (t) => {
  const { states, pool } = await service(t);
  // JSON nests deeper than the structured clone reads back
  writeFileSync(path.join(pillar, 'deepreply.sls'), `#!json\n{"deep": ${'{"a": '.repeat(2500)}1${'}'.repeat(2500)}}`);
  writeFileSync(path.join(pillar, 'top.sls'), "base:\n  '*':\n    - colour\n  'deepreply':\n    - deepreply\n");
  const err = await pool.pillar('deepreply', { os: 'Debian' }, {}, states.pillars.snapshot()).then(
    () => undefined,
    (e: Error & { code?: string }) => e,
  );
  t.equal(err?.code, 'BRINE_ERR_MASTER_COMPILE_TRANSFER');
  t.match(err?.message, /minion deepreply: the pillar .*the result cannot be read/);
  const ok = await states.compile('m3', { os: 'Debian' }, { mode: 'highstate' });
  t.notOk(ok.failed, `a later compile succeeds: ${ok.errors.join('\n')}`);
});
