import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { createCommandRunner } from '@brine/core';
import { callState, customModuleFiles, defaultRegistry, loadCustomModules, registryWith } from '@brine/states';

const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-custom-states-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

function write(name: string, text: string): string {
  const p = path.join(dir, name);
  writeFileSync(p, text);
  return p;
}

type Reg = ReturnType<typeof defaultRegistry>;

/** Runs `state.fun` through the registry as the runtime does. */
function run(reg: Reg, state: string, fun: string, args: Record<string, unknown>, test = false) {
  const chunk = { state, fun, __id__: String(args.name), __sls__: 's', __env__: 'base', order: 1, ...args } as Parameters<typeof callState>[1];
  return callState(reg, chunk, { low: chunk, running: {}, lowstate: [chunk], test, cmd: createCommandRunner(), files: { get: async () => undefined } });
}

t.test('a module file: object and bare-function forms, test flag, name from the file', async (t) => {
  const file = write(
    'greet.mjs',
    `export default { functions: {
      said: { args: { text: { type: 'string', required: true } },
        async run(a, ctx) { return { name: a.name, result: ctx.test ? null : true, changes: { said: a.text }, comment: 'said ' + a.text }; } },
      any: async (a) => ({ name: a.name, result: true, changes: {}, comment: Object.keys(a).sort().join(',') }),
    } };`,
  );
  const [mod] = await loadCustomModules([{ path: file }]);
  t.equal(mod!.name, 'greet');
  const reg = registryWith([mod!], defaultRegistry());
  t.ok(reg.lookup('greet', 'said'));
  t.ok(reg.lookup('file', 'managed'), 'shipped modules stay');
  t.ok(reg.list().includes('greet.said'));
  const r = await run(reg, 'greet', 'said', { name: 'hello', text: 'hi' });
  t.same([r.result, r.comment, r.changes], [true, 'said hi', { said: 'hi' }]);
  const dry = await run(reg, 'greet', 'said', { name: 'hello', text: 'hi' }, true);
  t.equal(dry.result, null);
  const any = await run(reg, 'greet', 'any', { name: 'hello', b: 1, a: 2 });
  t.equal(any.comment, 'a,b,name', 'the bare form takes any argument');
  const missing = await run(reg, 'greet', 'said', { name: 'hello' });
  t.equal(missing.result, false, 'a required argument is checked like a shipped module');
});

t.test('a custom module shadows the shipped module of its name, whole', async (t) => {
  const file = write('test.mjs', `export default { functions: { nop: async (a) => ({ name: a.name, result: true, changes: {}, comment: 'mine' }) } };`);
  const reg = registryWith(await loadCustomModules([{ path: file }]), defaultRegistry());
  t.ok(reg.lookup('test', 'nop'));
  t.notOk(reg.lookup('test', 'succeed_without_changes'), 'the shipped test module is replaced');
  t.notOk(reg.list().includes('test.succeed_without_changes'));
});

t.test('TypeScript modules load through Node type stripping', async (t) => {
  const file = write(
    'typed.ts',
    `interface Args { name: string; n: number }
     export default { functions: { counted: { args: { n: { type: 'number' } }, async run(a: Args) { return { name: a.name, result: true, changes: {}, comment: 'n=' + (a.n * 2) }; } } } };`,
  );
  const reg = registryWith(await loadCustomModules([{ path: file }]), defaultRegistry());
  const r = await run(reg, 'typed', 'counted', { name: 'x', n: 21 });
  t.equal(r.comment, 'n=42');
});

t.test('bad files are coded errors naming the file', async (t) => {
  const cases: Array<[string, string, RegExp]> = [
    ['nofuncs.mjs', 'export default { functions: {} };', /nofuncs\.mjs: exports no state functions/],
    ['badfn.mjs', 'export default { functions: { x: 42 } };', /badfn\.mjs: 'x' must be a function or an object with a run/],
    ['badarg.mjs', "export default { functions: { x: { args: { a: { type: 'str' } }, run() {} } } };", /badarg\.mjs: x: argument 'a' needs a type/],
    ['syntax.mjs', 'export default {', /syntax\.mjs: cannot be loaded/],
  ];
  for (const [name, text, msg] of cases) {
    const file = write(name, text);
    await t.rejects(loadCustomModules([{ path: file }]), { code: 'BRINE_ERR_STATES_CUSTOM_MODULE', message: msg }, name);
  }
});

t.test('customModuleFiles lists module files only, sorted', async (t) => {
  const d = mkdtempSync(path.join(dir, 'listing-'));
  for (const n of ['b.mjs', 'a.js', 'README.md', 'c.ts', 'bad-name.js', '_x.mts']) writeFileSync(path.join(d, n), '');
  t.same(
    customModuleFiles(d).map((f) => path.basename(f.path)),
    ['_x.mts', 'a.js', 'b.mjs', 'c.ts'],
  );
  t.same(customModuleFiles(path.join(d, 'nope')), []);
});
