#!/usr/bin/env node
// Benchmark: whole-process Brine beside live Salt (salt-call --local) on the same trees.
// Workloads: show_lowstate of a generated 10,000-state tree; show_lowstate of every formula case
// in a corpus folder (each case: tree/, tree/pillar/, grains.json, as the Salt oracle's
// formula-case writes them); state.apply of 10,000 test states in one requisite chain;
// state.apply of 1,000 new file.managed. Prints one JSON line per workload
// ({workload, salt_s, brine_s, ratio, ...}; times are the median of the runs, whole process),
// then a summary line for the formulas.
// Usage: node bench/salt-compare.mjs [workloads=lowstate-10k,formulas,apply-10k,files-1k]
// Env: SALT_ORACLE=DIR (the oracle's folder, holding salt-call-local; without it only Brine is
// timed), BENCH_CORPUS=DIR (the formula cases; default /work/scratch/corpus), BENCH_RUNS (Brine
// runs per workload, default 5), BENCH_SALT_RUNS (default 3, and 1 for apply-10k, a minute a run: Salt's
// whole-process times varied 1.19-1.62 s between runs of the 10,000-state workload),
// BRINE_BIN=path/to/bin.js (another build: run as `node bin.js`) or path/to/packages/cli/bin/brine
// (another build's launcher), BENCH_FILES_DIR (where files-1k writes; e.g. /dev/shm). Nothing of
// Salt's or the corpus is kept here.
// Brine starts as a user's `brine` does: the launcher packages/cli/bin/brine, with this node first
// on PATH (so a startup snapshot made by it is used); each line's `start` says how it started
// (snapshot, modules, or bin.js when BRINE_BIN names one).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const BIN = process.env.BRINE_BIN ?? join(dirname(fileURLToPath(import.meta.url)), '..', 'packages/cli/bin/brine');
const PATH = `${dirname(process.execPath)}:${process.env.PATH ?? ''}`;
const ORACLE = process.env.SALT_ORACLE;
const CORPUS = process.env.BENCH_CORPUS ?? '/work/scratch/corpus';
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const SALT_RUNS = Number(process.env.BENCH_SALT_RUNS ?? 3);
const workloads = new Set((process.argv[2] ?? 'lowstate-10k,formulas,apply-10k,files-1k').split(','));
const PER_FILE = 100;

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

/**
 * One whole-process run under GNU time: wall and CPU seconds, exit status. The wall is timed
 * here (GNU time's %e has 10 ms steps, 13% of a 75 ms formula); it includes time's own exec, for
 * both tools alike.
 */
function timed(argv, env = {}) {
  const t0 = performance.now();
  const r = spawnSync('/usr/bin/time', ['-f', '%e %U %S', ...argv], {
    encoding: 'utf8',
    maxBuffer: 1 << 30,
    cwd: '/',
    env: { ...process.env, PATH, ...env },
  });
  const wall = (performance.now() - t0) / 1000;
  const [, user, sys] = r.stderr.trim().split('\n').pop().split(' ').map(Number);
  return { wall, cpu: user + sys, exit: r.status, stdout: r.stdout };
}

/** Median wall and CPU of `runs` runs; `before` runs ahead of each (untimed), e.g. a clean-up. */
function measure(runs, argv, before) {
  const walls = [];
  const cpus = [];
  let exit = 0;
  for (let i = 0; i < runs; i++) {
    before?.();
    const r = timed(argv);
    walls.push(r.wall);
    cpus.push(r.cpu);
    if (r.exit !== 0) exit = r.exit;
  }
  return { s: +median(walls).toFixed(3), cpu_s: +median(cpus).toFixed(3), exit };
}

function brineArgs(fun, root, extra = []) {
  const start = BIN.endsWith('.js') ? [process.execPath, BIN] : [BIN];
  return [...start, 'local', ...fun, '--file-root', root, '--id', 'anchor', '--out', 'json', ...extra];
}

/** How the launcher starts `argv` (its last BRINE_SNAPSHOT=show line), from one untimed run. */
function startWay(argv) {
  if (BIN.endsWith('.js')) return 'bin.js';
  if (process.env.BRINE_SNAPSHOT === 'off') return 'modules';
  const r = spawnSync(argv[0], argv.slice(1), { encoding: 'utf8', maxBuffer: 1 << 30, cwd: '/', env: { ...process.env, PATH, BRINE_SNAPSHOT: 'show' } });
  const ways = r.stderr.split('\n').filter((l) => l.startsWith('brine: start: '));
  return ways.length ? ways[ways.length - 1].slice(14).split(' ')[0] : 'unknown';
}

function saltArgs(fun, root, pillar) {
  return ORACLE ? [join(ORACLE, 'salt-call-local'), root, pillar ?? '-', ...fun] : [];
}

/** Both tools on one workload; prints and returns the line. */
function compare(workload, brine, salt, before, extra = {}, saltRuns = SALT_RUNS) {
  before?.();
  const start = startWay(brine);
  const b = measure(RUNS, brine, before);
  const line = { workload, ...extra, start, brine_s: b.s, brine_cpu_s: b.cpu_s, brine_exit: b.exit };
  if (ORACLE) {
    const s = measure(saltRuns, salt, before);
    Object.assign(line, { salt_s: s.s, salt_exit: s.exit, ratio: +(s.s / b.s).toFixed(2) });
  }
  console.log(JSON.stringify(line));
  return line;
}

/** N states in files of 100, each requiring the one before (one chain across the files). */
function chainTree(root, states, body) {
  mkdirSync(join(root, 'gen'), { recursive: true });
  writeFileSync(join(root, 'top.sls'), "base:\n  '*':\n    - gen.*\n");
  for (let f = 0; f < Math.ceil(states / PER_FILE); f++) {
    let text = '';
    for (let i = 0; i < PER_FILE && f * PER_FILE + i < states; i++) text += body(f, i);
    writeFileSync(join(root, 'gen', `f${f}.sls`), text);
  }
}

// The chain's first state has an empty argument list, not an empty value: Salt's show_lowstate
// fails on `fun:` with nothing under it ('NoneType' object is not iterable).
const testChain = (f, i) => {
  let s = `s_${f}_${i}:\n  test.succeed_without_changes:${f === 0 && i === 0 ? ' []' : ''}\n`;
  if (i > 0) s += `    - require:\n      - test: s_${f}_${i - 1}\n`;
  else if (f > 0) s += `    - require:\n      - test: s_${f - 1}_${PER_FILE - 1}\n`;
  return s;
};

if (workloads.has('lowstate-10k') || workloads.has('apply-10k')) {
  const root = mkdtempSync(join(tmpdir(), 'brine-salt-cmp-'));
  chainTree(root, 10_000, testChain);
  if (workloads.has('lowstate-10k')) {
    compare('show_lowstate-10k', brineArgs(['state.show_lowstate'], root), saltArgs(['state.show_lowstate'], root));
  }
  if (workloads.has('apply-10k')) {
    compare('apply-10k-test', brineArgs(['state.apply'], root), saltArgs(['state.apply'], root), undefined, {}, Number(process.env.BENCH_SALT_RUNS ?? 1));
  }
  rmSync(root, { recursive: true, force: true });
}

if (workloads.has('files-1k')) {
  const root = mkdtempSync(join(tmpdir(), 'brine-salt-cmp-'));
  const base = mkdtempSync(join(process.env.BENCH_FILES_DIR ?? tmpdir(), 'brine-salt-cmp-out-'));
  const out = join(base, 'out');
  mkdirSync(out);
  chainTree(root, 1000, (f, i) => `file_${f}_${i}:\n  file.managed:\n    - name: ${out}/f${f}_${i}.txt\n    - contents: "state ${f}.${i}"\n`);
  // Every run creates all 1,000 files anew. The last run's files are moved aside, not removed,
  // until the end: ext4 without a journal skips inodes freed in the last ~35 s one by one when it
  // allocates new ones (recently_deleted), so a run right after a removal spent up to 0.8 s more
  // in the kernel, growing from run to run.
  let n = 0;
  const clean = () => {
    renameSync(out, join(base, `old-${n++}`));
    mkdirSync(out);
  };
  compare('apply-1k-new-files', brineArgs(['state.apply'], root), saltArgs(['state.apply'], root), clean);
  rmSync(root, { recursive: true, force: true });
  rmSync(base, { recursive: true, force: true });
}

if (workloads.has('formulas') && existsSync(CORPUS)) {
  const lines = [];
  for (const name of readdirSync(CORPUS).sort()) {
    const tree = join(CORPUS, name, 'tree');
    if (name.startsWith('.') || !existsSync(tree)) continue;
    const pillar = existsSync(join(tree, 'pillar')) ? join(tree, 'pillar') : undefined;
    const extra = [];
    if (pillar) extra.push('--pillar-root', pillar);
    const grains = join(CORPUS, name, 'grains.json');
    if (existsSync(grains)) extra.push('--grains', grains);
    lines.push(compare(`formula:${name}`, brineArgs(['state.show_lowstate'], tree, extra), saltArgs(['state.show_lowstate'], tree, pillar)));
  }
  const brineTotal = lines.reduce((a, l) => a + l.brine_s, 0);
  const summary = { workload: 'formulas-total', cases: lines.length, brine_s: +brineTotal.toFixed(2) };
  if (ORACLE) {
    const ratios = lines.map((l) => l.ratio);
    const saltTotal = lines.reduce((a, l) => a + l.salt_s, 0);
    Object.assign(summary, {
      salt_s: +saltTotal.toFixed(2),
      ratio: +(saltTotal / brineTotal).toFixed(2),
      ratio_median: median(ratios),
      ratio_min: Math.min(...ratios),
      ratio_max: Math.max(...ratios),
      lowest: lines
        .slice()
        .sort((a, b) => a.ratio - b.ratio)
        .slice(0, 5)
        .map((l) => `${l.workload.slice(8)} ${l.ratio}`),
    });
  }
  console.log(JSON.stringify(summary));
}
