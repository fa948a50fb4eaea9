#!/usr/bin/env node
// Differential check of the YAML fast path against the full parser (packages/jinja, built):
// every text the fast path takes must give the same value, key order, document order and key
// positions as the full `yaml` route. Texts: files given (.sls, .yaml, .yml, .jinja; a leading
// `#!` line dropped) and folders walked for them, and JSON-lines files written by a run under
// BRINE_YAML_DEBUG=file (every text the loader read, rendered SLS, map.jinja imports, pillar).
// Prints the counts, each difference, and the reasons the fast path gave for the texts it left.
// Usage: node bench/yaml-diff.mjs PATH... (exit 1 on a difference)
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';

const jinja = await import('../packages/jinja/dist/index.js');
const { declined } = await import('../packages/jinja/dist/yaml-fast.js');
const { keysOf } = await import('../packages/core/dist/index.js');

const texts = new Map();
function add(text, from) {
  if (!texts.has(text)) texts.set(text, from);
}
function walk(p) {
  if (statSync(p).isDirectory()) {
    for (const n of readdirSync(p)) walk(join(p, n));
  } else if (p.endsWith('.jsonl')) {
    for (const line of readFileSync(p, 'utf8').split('\n')) if (line) add(JSON.parse(line).text, p);
  } else if (/\.(sls|ya?ml|jinja)$/.test(p)) {
    add(readFileSync(p, 'utf8').replace(/^#!.*/, ''), p);
  }
}
for (const p of process.argv.slice(2)) walk(p);

const order = (v) => (Array.isArray(v) ? v.map(order) : v === null || typeof v !== 'object' ? v : keysOf(v).map((k) => [k, order(v[k])]));
let fast = 0;
let diffs = 0;
const why = new Map();
for (const [text, from] of texts) {
  const quick = jinja.fastYaml(text);
  if (!quick) {
    why.set(declined.why, (why.get(declined.why) ?? 0) + 1);
    continue;
  }
  fast++;
  const full = jinja.loadYaml(text, { fast: false });
  const problems = [];
  if (full.error) problems.push(`full parser error: ${full.error.message}`);
  else {
    if (!isDeepStrictEqual(quick.value, full.value)) problems.push('value');
    if (JSON.stringify(quick.value) !== JSON.stringify(full.value)) problems.push('key order');
    if (!isDeepStrictEqual(order(quick.value), order(full.value))) problems.push('document order');
    const a = jinja.collectPositions({ value: quick.value, fast: quick.positions }, 'f');
    const b = jinja.collectPositions(full, 'f');
    if (!isDeepStrictEqual(plainPositions(a), plainPositions(b))) problems.push('positions');
    // as a compile reads them: the loader keeps the IDs' only and parses again for the others
    if (!isDeepStrictEqual(plainPositions(jinja.collectPositions(jinja.loadYaml(text), 'f')), plainPositions(b))) problems.push('positions found again');
  }
  if (problems.length) {
    diffs++;
    console.log(`DIFF ${problems.join(', ')}: ${from}\n  ${JSON.stringify(text.slice(0, 300))}`);
  }
}
/** Positions as plain data (the fast path's work out states and args when read, through getters). */
function plainPositions(m) {
  return { file: m.file, ids: Object.fromEntries(Object.entries(m.ids).map(([id, e]) => [id, { pos: e.pos, states: e.states, args: e.args }])) };
}

console.log(JSON.stringify({ texts: texts.size, fast, full: texts.size - fast, differences: diffs }));
for (const [w, n] of [...why].sort((x, y) => y[1] - x[1])) console.log(`  left to the full parser: ${n} ${w}`);
process.exit(diffs ? 1 : 0);
