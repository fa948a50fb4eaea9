import t from 'tap';
import { unknownArgOf } from '@brine/core';
import { defaultRegistry, loadRegistry, signatureRegistry, signaturesOf, STATE_SIGNATURES } from '../src/index.js';
import { MODULE_LOADERS } from '../src/module-loaders.js';

const all = defaultRegistry();

/** signatures.ts is written by scripts/state-signatures.mjs: a module changed since fails here. */
t.test('the signatures are those of the shipped modules', async (t) => {
  t.same(STATE_SIGNATURES, signaturesOf(all), 'run `npm run build && node scripts/state-signatures.mjs`');
});

t.test('the signature registry answers as the full one for names, functions and unknown arguments', async (t) => {
  const sig = signatureRegistry();
  t.same(sig.list(), all.list());
  t.equal(sig.module('nope'), undefined);
  t.equal(sig.lookup('test', 'nope'), undefined);
  t.equal(sig.lookup('test', 'toString'), undefined, 'prototype keys are not functions');
  t.equal(sig.module('toString'), undefined);
  for (const full of all.list()) {
    const [state, fun] = [full.slice(0, full.indexOf('.')), full.slice(full.indexOf('.') + 1)];
    for (const key of [...Object.keys(all.lookup(state, fun)!.fn.args), 'no_such_arg', 'require', 'name']) {
      t.equal(unknownArgOf(sig, state, fun, key), unknownArgOf(all, state, fun, key), `${full} ${key}`);
    }
  }
  await t.rejects(async () => sig.lookup('test', 'nop')!.fn.run({ name: 'x' }, {} as never), { code: 'BRINE_ERR_STATES_NOT_LOADED' });
});

t.test('each module loads alone by its name', async (t) => {
  t.same(Object.keys(MODULE_LOADERS).sort(), [...new Set(all.list().map((f) => f.slice(0, f.indexOf('.'))))].sort());
  for (const [name, load] of Object.entries(MODULE_LOADERS)) {
    const m = await load();
    t.equal(m.name, name);
    t.same(Object.keys(m.functions).sort(), Object.keys(all.module(name)!.functions).sort(), name);
  }
  const some = await loadRegistry(['test', 'cmd', 'test', 'no_such_module']);
  t.same([...new Set(some.list().map((f) => f.slice(0, f.indexOf('.'))))], ['cmd', 'test'], 'only the modules asked for');
  t.equal(some.module('file'), undefined);
  t.equal(typeof some.lookup('test', 'nop')!.fn.run, 'function');
});
