// The master's compile workers: how long the pool takes to start, and what a 50-state highstate
// (five SLS files with includes and requisites, a pillar value in every state) costs compiled
// through it. Every compile has its own grains, so none is served from a cache. Prints one line:
//   startup_ms        new CompilePool -> the first compile returned (the workers start meanwhile)
//   first_ms          the first compile alone (trees reach the worker)
//   per_compile_ms    mean of the next C compiles, one after another
//   parallel_ms       C compiles submitted at once, wall clock
// Usage: node bench/compile-pool.mjs [C] [WORKERS]   (defaults 50 and 2)
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createLogger } from '@brine/core';
import { CompilePool } from '../packages/master/dist/compile-pool.js';
import { MASTER_DEFAULTS } from '../packages/master/dist/config.js';
import { StateService } from '../packages/master/dist/state-service.js';

const C = Number(process.argv[2] ?? 50);
const W = Number(process.argv[3] ?? 2);
const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-pool-bench-'));
const states = path.join(dir, 'states');
const pillar = path.join(dir, 'pillar');
mkdirSync(path.join(states, 'app'), { recursive: true });
mkdirSync(pillar);
for (let f = 0; f < 5; f++) {
  let text = f > 0 ? `include:\n  - app.part${f - 1}\n\n` : '';
  for (let i = 0; i < 10; i++) {
    text += `state-${f}-${i}:\n  test.succeed_without_changes:\n    - comment: {{ pillar['app']['name'] }} {{ grains['n'] }} ${i}\n`;
    if (i > 0) text += `    - require:\n      - test: state-${f}-${i - 1}\n`;
  }
  writeFileSync(path.join(states, 'app', `part${f}.sls`), text);
}
writeFileSync(path.join(states, 'top.sls'), "base:\n  '*':\n    - app.part4\n");
writeFileSync(path.join(pillar, 'top.sls'), "base:\n  '*':\n    - app\n");
writeFileSync(path.join(pillar, 'app.sls'), 'app:\n  name: bench\n');

const config = { ...MASTER_DEFAULTS, data_dir: path.join(dir, 'data'), file_roots: { base: [states] }, pillar_roots: { base: [pillar] }, compile_workers: W };
const log = createLogger({ level: 'silent' });
const svc = new StateService(config, { plugins: [], errors: [] }, log);
let n = 0;
const compile = async () => {
  const r = await svc.compile(`m${n}`, { os: 'Debian', n: n++ }, { mode: 'highstate' });
  if (r.failed || r.low.length !== 50) throw new Error(r.errors.join('\n') || `${r.low.length} states`);
};

const t0 = performance.now();
const pool = new CompilePool(config, log, W);
svc.usePool(pool);
await compile();
const startup = performance.now() - t0;
const t1 = performance.now();
await compile();
const first = performance.now() - t1;
const t2 = performance.now();
for (let i = 0; i < C; i++) await compile();
const per = (performance.now() - t2) / C;
const t3 = performance.now();
await Promise.all(Array.from({ length: C }, compile));
const parallel = performance.now() - t3;
await pool.close();
rmSync(dir, { recursive: true, force: true });
console.log(
  JSON.stringify({
    workers: W,
    compiles: C,
    startup_ms: Math.round(startup),
    first_ms: Math.round(first),
    per_compile_ms: +per.toFixed(1),
    parallel_ms: Math.round(parallel),
  }),
);
