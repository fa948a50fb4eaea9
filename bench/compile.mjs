#!/usr/bin/env node
// Benchmark: render + compile a generated state tree (100 SLS files, 10,000 states: include
// chains, requisites, names, Jinja loops) to ordered low state. Prints one JSON line.
// Usage: node bench/compile.mjs [files=100] [statesPerFile=100] [runs=5]
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileHighstate, dirTree } from '../packages/compiler/dist/index.js';

const files = Number(process.argv[2] ?? 100);
const perFile = Number(process.argv[3] ?? 100);
const runs = Number(process.argv[4] ?? 5);
const names = 10;
const looped = perFile - names;

const root = mkdtempSync(join(tmpdir(), 'brine-bench-'));
mkdirSync(join(root, 'app'));
writeFileSync(join(root, 'top.sls'), "base:\n  '*':\n    - app.*\n");
for (let i = 0; i < files; i++) {
  const include = i % 10 === 0 ? '' : `include:\n  - app.mod${i - 1}\n`;
  writeFileSync(
    join(root, 'app', `mod${i}.sls`),
    `${include}{% set prefix = 'm${i}' %}
{% for n in range(${looped}) %}
{{ prefix }}_state_{{ n }}:
  test.succeed_without_changes:
    - comment: "{{ grains['id'] }} {{ loop.index }}"
{%- if not loop.first %}
    - require:
      - test: {{ prefix }}_state_{{ n - 1 }}
{%- endif %}
{% endfor %}
{{ prefix }}_pkgs:
  test.nop:
    - names:
{%- for k in range(${names}) %}
      - {{ prefix }}-pkg-{{ k }}
{%- endfor %}
    - require:
      - test: {{ prefix }}_state_0
`,
  );
}

const opts = { tree: dirTree({ base: [root] }), minion: { id: 'bench', grains: { id: 'bench' } } };
const times = [];
let states = 0;
let peak = process.memoryUsage().rss;
for (let r = 0; r < runs; r++) {
  // A fresh tree each run, so the file listing and templates are read and compiled again.
  const t0 = process.hrtime.bigint();
  const c = compileHighstate({ ...opts, tree: dirTree({ base: [root] }) });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (c.failed) {
    console.error(c.diagnostics.slice(0, 5));
    process.exit(1);
  }
  states = c.low.length;
  times.push(ms);
  peak = Math.max(peak, process.memoryUsage().rss);
}
rmSync(root, { recursive: true, force: true });
const cold = times[0];
const warm = times.slice(1).sort((a, b) => a - b);
const median = warm.length ? warm[Math.floor(warm.length / 2)] : cold;
console.log(
  JSON.stringify({
    bench: 'compile',
    files,
    states,
    cold_ms: +cold.toFixed(1),
    median_ms: +median.toFixed(1),
    states_per_s: Math.round(states / (median / 1000)),
    cold_states_per_s: Math.round(states / (cold / 1000)),
    peak_rss_mb: +(peak / 1024 / 1024).toFixed(1),
  }),
);
