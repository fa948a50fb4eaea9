#!/usr/bin/env node
// Regenerates the golden expectations of test/fixtures/requisites/<case>/ from real Salt:
//   node scripts/requisite-golden.mjs /work/scratch/salt-oracle [case ...]
// For each case (all when none is named) it runs the oracle's salt-call-local on `tree/` with no
// pillar: state.show_lowstate, state.apply test=True, then state.apply, and writes salt-low.json,
// salt-run-test.json, salt-run.json and salt-retcodes.json. Each run starts with the case's scratch
// folder /tmp/brine-requisites/<prefix> removed, then the case's setup.sh (if any) run with bash
// (to put files in place before a run). start_time, duration and changes.pid vary from
// run to run and are left out; where Salt crashes, the file holds {"salt_crashed": last line}; everything else is Salt's answer as printed.
// This script only records Salt; the tests never write their own expectations.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const [oracle, ...only] = process.argv.slice(2);
if (!oracle || !existsSync(join(oracle, 'salt-call-local'))) {
  console.error('usage: node scripts/requisite-golden.mjs ORACLE_DIR [case ...]');
  process.exit(2);
}
const root = fileURLToPath(new URL('../test/fixtures/requisites/', import.meta.url));
const cases = only.length
  ? only
  : readdirSync(root)
      .filter((d) => existsSync(join(root, d, 'tree')))
      .sort();

function salt(tree, args) {
  // Some requisite graphs send Salt into an endless loop: give up after three minutes.
  const run = spawnSync(join(oracle, 'salt-call-local'), [tree, '-', ...args], { cwd: '/tmp', encoding: 'utf8', timeout: 180_000, killSignal: 'SIGKILL' });
  if (run.error?.code === 'ETIMEDOUT') return { value: { salt_crashed: 'no answer after 180 s (killed)' }, code: null };
  let value;
  try {
    value = JSON.parse(run.stdout).local;
  } catch {
    // Salt itself crashed (a Python traceback, no JSON): keep its last words as the answer.
    const last = `${run.stdout}\n${run.stderr}`.trim().split('\n').pop();
    value = { salt_crashed: last };
  }
  return { value, code: run.status };
}

function normalise(running) {
  if (running === null || typeof running !== 'object' || Array.isArray(running)) return running;
  const out = {};
  for (const [tag, r] of Object.entries(running)) {
    const { start_time: _s, duration: _d, ...rest } = r;
    if (rest.changes && typeof rest.changes === 'object' && 'pid' in rest.changes) {
      const { pid: _p, ...changes } = rest.changes;
      rest.changes = changes;
    }
    out[tag] = rest;
  }
  return out;
}

function prepare(dir, scratch) {
  rmSync(scratch, { recursive: true, force: true });
  if (!existsSync(join(dir, 'setup.sh'))) return;
  const r = spawnSync('/bin/bash', [join(dir, 'setup.sh')], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${dir}/setup.sh failed: ${r.stderr}`);
}

const write = (dir, file, value) => writeFileSync(join(dir, file), JSON.stringify(value, null, 2) + '\n');

for (const name of cases) {
  const dir = join(root, name);
  const tree = join(dir, 'tree');
  const scratch = `/tmp/brine-requisites/${name.split('-')[0]}`;
  const low = salt(tree, ['state.show_lowstate']);
  prepare(dir, scratch);
  const dry = salt(tree, ['state.apply', 'test=True']);
  prepare(dir, scratch);
  const real = salt(tree, ['state.apply']);
  rmSync(scratch, { recursive: true, force: true });
  write(dir, 'salt-low.json', low.value);
  write(dir, 'salt-run-test.json', normalise(dry.value));
  write(dir, 'salt-run.json', normalise(real.value));
  write(dir, 'salt-retcodes.json', { salt_version: '3007.10', show_lowstate: low.code, apply: real.code, apply_test: dry.code });
  console.log(`${name}: low ${low.code}, test ${dry.code}, apply ${real.code}`);
}
