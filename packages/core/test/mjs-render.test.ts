import t from 'tap';
import { renderMjs } from '../src/host/mjs-render.js';

/**
 * The #!mjs renderer's process, for real: a module's data comes back; a module can read no file,
 * start no process and sees no environment; one that loops, floods its output or has no default
 * export fails with why.
 */
const limits = { timeoutMs: 10_000 };

t.test("a module's default export gets the context and returns the data", async (t) => {
  const r = await renderMjs('export default async ({ id, n }) => ({ [id]: { "test.nop": [{ name: String(n * 2) }] } });', { id: 'web1', n: 21 }, limits);
  t.same(r, { ok: true, value: { web1: { 'test.nop': [{ name: '42' }] } } });
});

t.test("no file, no process, none of the master's environment", async (t) => {
  process.env.BRINE_MJS_TEST_SECRET = 'hunter2';
  t.teardown(() => delete process.env.BRINE_MJS_TEST_SECRET);
  const r = await renderMjs(
    `import fs from 'node:fs'; import cp from 'node:child_process';
     const tryIt = (f) => { try { f(); return 'allowed'; } catch (e) { return e.code; } };
     export default () => ({
       read: tryIt(() => fs.readFileSync('/etc/hostname')),
       write: tryIt(() => fs.writeFileSync('/tmp/brine-mjs-escape', 'x')),
       spawn: tryIt(() => cp.execSync('id')),
       env: process.env.BRINE_MJS_TEST_SECRET ?? null,
     });`,
    {},
    limits,
  );
  t.same(r, { ok: true, value: { read: 'ERR_ACCESS_DENIED', write: 'ERR_ACCESS_DENIED', spawn: 'ERR_ACCESS_DENIED', env: null } });
});

t.test('a loop, a flood, a throw, no default export: each fails with why', async (t) => {
  t.same(await renderMjs('export default () => { for (;;); };', {}, { timeoutMs: 500 }), { ok: false, message: 'it ran longer than 0.5 s' });
  t.same(await renderMjs('export default () => "x".repeat(2000);', {}, { ...limits, maxBytes: 1000 }), {
    ok: false,
    message: 'its result is larger than 1000 bytes',
  });
  t.same(await renderMjs('export default () => { throw new Error("no db host in pillar"); };', {}, limits), { ok: false, message: 'no db host in pillar' });
  t.match(await renderMjs('export const x = 1;', {}, limits), { ok: false, message: /no default export function/ });
  t.match(await renderMjs('export default (', {}, limits), { ok: false, message: /SyntaxError|Unexpected/ });
});
