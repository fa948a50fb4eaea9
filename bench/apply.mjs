#!/usr/bin/env node
// Benchmark: whole-process `brine local state.apply` on generated trees, with peak RSS.
// Scenarios: N test states in requisite chains (N = 1,000 / 10,000 / 50,000 by default), and
// 1,000 file.managed states writing into a temp dir. Prints one JSON line per scenario.
// Usage: node bench/apply.mjs [counts=1000,10000,50000] [files=1000]
// BRINE_BIN=path/to/bin.js compares another build; cpu_s (user + system) moves less than wall_s
// on a machine that is doing other work.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const BIN = process.env.BRINE_BIN ?? join(dirname(fileURLToPath(import.meta.url)), '..', 'packages/cli/dist/bin.js');
const counts = (process.argv[2] ?? '1000,10000,50000').split(',').map(Number);
const fileStates = Number(process.argv[3] ?? 1000);
const PER_FILE = 100;

function tree(root, states, body) {
  mkdirSync(join(root, 'gen'), { recursive: true });
  const files = Math.ceil(states / PER_FILE);
  writeFileSync(join(root, 'top.sls'), "base:\n  '*':\n    - gen.*\n");
  for (let f = 0; f < files; f++) {
    let text = '';
    for (let i = 0; i < PER_FILE && f * PER_FILE + i < states; i++) text += body(f, i);
    writeFileSync(join(root, 'gen', `f${f}.sls`), text);
  }
}

function applyOnce(root, requisites) {
  // GNU time reports the whole process's peak RSS (KiB) and wall time.
  const r = spawnSync(
    '/usr/bin/time',
    ['-f', '%e %M %U %S', process.execPath, BIN, 'local', 'state.apply', '--file-root', root, '--id', 'bench', '--out', 'json'],
    {
      encoding: 'utf8',
      maxBuffer: 1 << 30,
    },
  );
  const [wall, rssKb, user, sys] = r.stderr.trim().split('\n').pop().split(' ').map(Number);
  const running = JSON.parse(r.stdout).local;
  const results = Object.values(running);
  return {
    wall_s: wall,
    cpu_s: +(user + sys).toFixed(2),
    peak_rss_mb: +(rssKb / 1024).toFixed(1),
    states: results.length,
    requisites,
    failed: results.filter((x) => x.result === false).length,
    exit: r.status,
  };
}

for (const n of counts) {
  const root = mkdtempSync(join(tmpdir(), 'brine-apply-'));
  // Each state requires the previous one in its file, and the first of a file requires the
  // last state of the previous file: one long chain plus a cross-file requisite per file.
  tree(root, n, (f, i) => {
    let s = `s_${f}_${i}:\n  test.succeed_without_changes:\n`;
    if (i > 0) s += `    - require:\n      - test: s_${f}_${i - 1}\n`;
    else if (f > 0) s += `    - require:\n      - test: s_${f - 1}_${PER_FILE - 1}\n`;
    return s;
  });
  const result = applyOnce(root, n - 1);
  console.log(JSON.stringify({ bench: 'apply', scenario: 'test-chain', ...result }));
  rmSync(root, { recursive: true, force: true });
}

{
  const root = mkdtempSync(join(tmpdir(), 'brine-apply-'));
  const out = mkdtempSync(join(tmpdir(), 'brine-apply-out-'));
  tree(root, fileStates, (f, i) => `file_${f}_${i}:\n  file.managed:\n    - name: ${out}/f${f}_${i}.txt\n    - contents: "state ${f}.${i}"\n`);
  const first = applyOnce(root, 0);
  console.log(JSON.stringify({ bench: 'apply', scenario: 'file-managed-create', ...first }));
  const again = applyOnce(root, 0);
  console.log(JSON.stringify({ bench: 'apply', scenario: 'file-managed-unchanged', ...again }));
  rmSync(root, { recursive: true, force: true });
  rmSync(out, { recursive: true, force: true });
}
