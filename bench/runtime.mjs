// Runtime benchmark: 10,000 test states with requisite chains through runLowState, with a
// minimal test-only registry (no host I/O). Prints one JSON line.
// Usage: node bench/runtime.mjs [states]   (build first: npx tsc -b packages/runtime)
import { runLowState } from '../packages/runtime/dist/index.js';

const N = Number(process.argv[2] ?? 10000);
const ok = { args: {}, run: async (a) => ({ name: a.name, result: true, changes: {}, comment: 'Success!' }) };
const changed = {
  args: {},
  run: async (a, ctx) => ({
    name: a.name,
    result: ctx.test ? null : true,
    changes: { testing: { old: 'Unchanged', new: 'Something pretended to change' } },
    comment: 'Success!',
  }),
};
const test = {
  name: 'test',
  available: () => ({ available: true }),
  functions: { succeed_without_changes: ok, succeed_with_changes: changed },
  modWatch: async (a) => ({ name: a.name, result: true, changes: {}, comment: 'Watch statement fired.' }),
};
const registry = {
  module: (n) => (n === 'test' ? test : undefined),
  lookup: (s, f) => (s === 'test' && test.functions[f] ? { module: test, fn: test.functions[f] } : undefined),
  list: () => Object.keys(test.functions).map((f) => `test.${f}`),
};

// Chains of 10: each state requires the previous one (by ID) and every fifth watches, by name,
// the chain's head; every chain's last state requires the whole SLS of the previous chain.
const low = [];
for (let i = 0; i < N; i++) {
  const chain = Math.floor(i / 10);
  const c = {
    state: 'test',
    __id__: `s${i}`,
    name: `name-${i}`,
    __sls__: `sls${chain}`,
    __env__: 'base',
    order: 10000 + i,
    fun: i % 7 === 0 ? 'succeed_with_changes' : 'succeed_without_changes',
  };
  if (i % 10 !== 0) c.require = [{ test: `s${i - 1}` }];
  if (i % 5 === 0 && i % 10 !== 0) c.watch = [{ test: `name-${chain * 10}` }];
  if (i % 10 === 9 && chain > 0) c.require.push({ sls: `sls${chain - 1}` });
  low.push(c);
}
// Declared in reverse within each chain so that requisites drive the execution order.
const ordered = [];
for (let i = 0; i < low.length; i += 10) ordered.push(...low.slice(i, i + 10).reverse());

const files = { get: async () => undefined };
const cmd = { run: async () => ({ retcode: 0, stdout: '', stderr: '', pid: 0 }) };
const t0 = performance.now();
const out = await runLowState(ordered, { registry, cmd, files });
const ms = performance.now() - t0;
const results = Object.keys(out.running).length;
if (results !== N || out.retcode !== 0) throw new Error(`expected ${N} successes, got ${results} (retcode ${out.retcode})`);
console.log(
  JSON.stringify({
    bench: 'runtime',
    states: N,
    requisites: low.reduce((n, c) => n + (c.require?.length ?? 0) + (c.watch?.length ?? 0), 0),
    ms: Math.round(ms),
    states_per_s: Math.round(N / (ms / 1000)),
    rss_mb: Math.round(process.memoryUsage().rss / 1048576),
  }),
);
