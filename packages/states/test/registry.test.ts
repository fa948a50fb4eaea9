import t from 'tap';
import type { StateModule } from '@brine/core';
import { callState, callModWatch, createRegistry, defaultRegistry, GLOBAL_STATE_ARGS, isGlobalStateArg, hasModWatch } from '../src/index.js';
import { chunk, ctxFor } from './helpers.js';

const probe: StateModule = {
  name: 'probe',
  available: () => ({ available: true }),
  functions: {
    strict: {
      args: { size: { type: 'number', required: true }, mode: { type: ['string', 'number'] }, flag: { type: 'boolean', default: false } },
      strictArgs: true,
      run: async (args) => ({ name: String(args.name), result: true, changes: {}, comment: JSON.stringify(args) }),
    },
    loose: {
      args: { size: { type: 'number' } },
      run: async (args) => ({ name: String(args.name), result: true, changes: {}, comment: JSON.stringify(args) }),
    },
    boom: {
      args: {},
      run: async () => {
        throw new Error('kaboom');
      },
    },
  },
};
const offline: StateModule = {
  name: 'offline',
  available: () => ({ available: false, reason: 'systemd is not running' }),
  functions: { on: { args: {}, run: async (a) => ({ name: String(a.name), result: true, changes: {}, comment: '' }) } },
};

const reg = createRegistry([probe, offline]);

t.test('registry lists and looks up module.function', async (t) => {
  t.same(reg.list(), ['offline.on', 'probe.boom', 'probe.loose', 'probe.strict']);
  t.ok(reg.lookup('probe', 'strict'));
  t.notOk(reg.lookup('probe', 'nope'));
  t.notOk(reg.lookup('probe', 'toString'), 'prototype keys are not functions');
  t.throws(() => createRegistry([probe, probe]), { code: 'BRINE_ERR_STATES_DUPLICATE_MODULE' });
  const all = defaultRegistry().list();
  for (const f of ['test.succeed_with_changes', 'cmd.run', 'cmd.wait', 'cmd.script']) t.ok(all.includes(f), f);
});

t.test('arguments are checked before the call', async (t) => {
  const ok = await callState(
    reg,
    chunk('probe', 'strict', 'x', { size: 3, require: [{ test: 'a' }], unless: 'true', order: 5, names: ['x'] }),
    ctxFor(chunk('probe', 'strict', 'x')),
  );
  t.equal(ok.result, true);
  t.same(JSON.parse(ok.comment), { name: 'x', size: 3, flag: false }, 'globals ignored, defaults filled');

  const missing = await callState(reg, chunk('probe', 'strict', 'x'), ctxFor(chunk('probe', 'strict', 'x')));
  t.equal(missing.result, false);
  t.equal(missing.comment, "Missing required argument 'size' for state probe.strict");

  const unknown = await callState(reg, chunk('probe', 'strict', 'x', { size: 1, colour: 'red' }), ctxFor(chunk('probe', 'strict', 'x')));
  t.equal(unknown.result, false);
  t.equal(unknown.comment, "'colour' is an invalid keyword argument for 'probe.strict'", "Salt's words where its function has no **kwargs");
  const two = await callState(reg, chunk('probe', 'strict', 'x', { size: 1, colour: 'red', shape: 1, tint: 2 }), ctxFor(chunk('probe', 'strict', 'x')));
  t.equal(two.comment, "'colour', 'shape' and 'tint' are invalid keyword arguments for 'probe.strict'");

  // Salt's **kwargs: an unknown keyword is ignored (the chunk keeps it, for a template's context).
  const loose = await callState(reg, chunk('probe', 'loose', 'x', { size: 1, colour: 'red' }), ctxFor(chunk('probe', 'loose', 'x')));
  t.equal(loose.result, true);
  t.same(JSON.parse(loose.comment), { name: 'x', size: 1 });

  const wrong = await callState(reg, chunk('probe', 'strict', 'x', { size: 1, mode: ['a'] }), ctxFor(chunk('probe', 'strict', 'x')));
  t.equal(wrong.result, false);
  t.equal(wrong.comment, "Argument 'mode' of state probe.strict must be a string or a number, not a list");
});

t.test('unknown functions, unavailable modules and exceptions fail the state only', async (t) => {
  const c = chunk('nosuch', 'thing', 'x');
  const nf = await callState(reg, c, ctxFor(c));
  t.same(nf, { name: 'x', result: false, changes: {}, comment: "State 'nosuch.thing' was not found in SLS 'main'" });
  const nf2 = await callState(reg, chunk('probe', 'nope', 'x'), ctxFor(c));
  t.equal(nf2.comment, "State 'probe.nope' was not found in SLS 'main'");
  const off = await callState(reg, chunk('offline', 'on', 'x'), ctxFor(c));
  t.equal(off.result, false);
  t.equal(off.comment, "State 'offline.on' was not found in SLS 'main'\nReason: 'offline' is not available on this host: systemd is not running");
  const boom = await callState(reg, chunk('probe', 'boom', 'x'), ctxFor(c));
  t.equal(boom.result, false);
  t.equal(boom.comment, 'An exception occurred in this state: kaboom');
});

t.test('GLOBAL_STATE_ARGS covers requisites and global arguments', async (t) => {
  for (const k of [
    'require',
    'watch_in',
    'onchanges_any',
    'prereq',
    'listen',
    'unless',
    'onlyif',
    'creates',
    'failhard',
    'retry',
    'parallel',
    'names',
    'arg_bind',
    'check_cmd',
    'order',
    'use',
    'fire_event',
  ]) {
    t.ok(GLOBAL_STATE_ARGS.has(k), k);
  }
  t.ok(isGlobalStateArg('__id__'), 'every injected __key__');
});

t.test('mod_watch through the registry', async (t) => {
  const r = defaultRegistry();
  t.ok(hasModWatch(r, 'cmd'));
  t.ok(hasModWatch(r, 'test'));
  t.notOk(hasModWatch(r, 'probe'));
  const c = chunk('probe', 'strict', 'x', { size: 1 });
  const nw = await callModWatch(reg, c, ctxFor(c));
  t.equal(nw.comment, "State 'probe.mod_watch' was not found in SLS 'main'");
});
