import t from 'tap';
import { bindArgs, callExec, execContext, execRegistry, runExec } from '../src/index.js';

const registry = execRegistry();
const fn = (name: string) => registry.get(name);
const ctx = execContext({
  registry,
  grains: { os: 'Debian', shell: '/bin/bash', ip4: ['10.0.0.1'] },
  pillar: { a: { b: [1, { c: 'x' }] } },
  opts: { id: 'm1', file_client: 'local' },
});

t.test('arguments bind like a Python call', async (t) => {
  t.same(bindArgs(fn('grains.get'), ['os'], {}), { key: 'os', default: '', delimiter: ':' });
  t.same(bindArgs(fn('grains.get'), [], { key: 'a', default: 1 }), { key: 'a', default: 1, delimiter: ':' });
  t.same(bindArgs(fn('cmd.run'), ['ls'], { timeout: '5' }).timeout, 5, 'numbers given as text are read');
  t.throws(() => bindArgs(fn('test.ping'), [1], {}), {
    code: 'BRINE_ERR_EXEC_BAD_ARGS',
    message: 'Passed invalid arguments to test.ping: ping() takes 0 positional arguments but 1 was given',
  });
  t.throws(() => bindArgs(fn('test.echo'), [], {}), { message: /missing required argument 'text'/ });
  t.throws(() => bindArgs(fn('test.echo'), ['a', 'b'], {}), { message: /echo\(\) takes 1 positional argument but 2 were given/ });
  t.throws(() => bindArgs(fn('grains.get'), ['a', 'b', 'c', 'd', 'e'], {}), { message: /get\(\) takes from 1 to 4 positional arguments but 5 were given/ });
  t.throws(() => bindArgs(fn('test.echo'), ['a'], { text: 'b' }), { message: /multiple values/ });
  t.throws(() => bindArgs(fn('cmd.run'), ['ls'], { timeout: 'soon' }), { message: /must be number/ });
  t.same(bindArgs(fn('test.ping'), [], { __pub_jid: 'x' }), {}, 'dunder keywords are ignored');
  t.same(bindArgs(fn('test.arg'), [1, 'two'], { a: 'b' }), { args: [1, 'two'], kwargs: { a: 'b' } }, '*args and **kwargs');
});

t.test('registry: lookup, list with globs and module names, doc, unknown names', async (t) => {
  t.ok(registry.lookup('test.ping'));
  t.equal(registry.lookup('no.such'), undefined);
  t.ok(registry.list('test').every((n) => n.startsWith('test.')));
  t.ok(registry.list('test').includes('test.ping'));
  t.same(registry.list('cmd.run*'), ['cmd.run', 'cmd.run_all', 'cmd.run_stderr', 'cmd.run_stdout']);
  t.match(registry.doc('test.ping'), { 'test.ping': /True/ });
  await t.rejects(callExec(registry, 'no.such', [], {}, ctx), { code: 'BRINE_ERR_EXEC_UNKNOWN_FUNCTION', message: "'no.such' is not available." });
  const mine = registry.clone().register({ name: 'my.fun', doc: '', params: [], run: () => ({ return: 7 }) });
  t.equal(await callExec(mine, 'my.fun', [], {}, ctx), 7);
  t.equal(registry.lookup('my.fun'), undefined, 'a clone does not change the original');
});

t.test('test, grains, pillar, config, sys values as Salt gives them', async (t) => {
  const call = (f: string, a: unknown[] = [], k: Record<string, unknown> = {}) => callExec(registry, f, a, k, ctx);
  t.equal(await call('test.ping'), true);
  t.equal(await call('test.true'), true);
  t.equal(await call('test.false'), false);
  t.equal(await call('test.echo', ['hi']), 'hi');
  t.same(await call('test.arg', [1, 'two'], { a: 'b' }), { args: [1, 'two'], kwargs: { a: 'b' } });
  t.same(await call('test.arg_type', [1, 'x', 1.5, null]), { args: ["<class 'int'>", "<class 'str'>", "<class 'float'>", "<class 'NoneType'>"], kwargs: {} });
  t.same(await runExec(registry, 'test.retcode', [], {}, ctx), { return: true, retcode: 42 });
  t.equal(await call('grains.get', ['os']), 'Debian');
  t.equal(await call('grains.get', ['ip4:0']), '10.0.0.1');
  t.equal(await call('grains.get', ['nope']), '');
  t.same(await call('grains.item', ['os', 'nope']), { os: 'Debian', nope: '' });
  t.equal(await call('pillar.get', ['a:b:1:c']), 'x');
  t.equal(await call('pillar.get', ['a:zz'], { default: 5 }), 5);
  t.same(await call('pillar.item', ['a:b:0', 'q']), { 'a:b:0': 1, q: '' });
  t.same(await call('pillar.raw', ['a']), { b: [1, { c: 'x' }] });
  t.equal(await call('config.get', ['id']), 'm1', 'minion config first');
  t.equal(await call('config.get', ['os']), 'Debian', 'then grains');
  t.equal(await call('config.get', ['a:b:0']), 1, 'then pillar');
  t.equal(await call('config.get', ['nope'], { default: 'd' }), 'd');
  t.equal(await call('config.option', ['file_client']), 'local');
  t.equal(await call('config.option', ['a:b']), '', 'option does not traverse');
  t.ok(((await call('sys.list_functions', ['test'])) as string[]).includes('test.ping'));
  t.match(await call('sys.doc', ['cmd.which']), { 'cmd.which': /executable/ });
});

t.test('mine.get without a master answers {} as salt-call --local does', async (t) => {
  t.same(await callExec(registry, 'mine.get', ['*', 'network.ip_addrs'], { tgt_type: 'glob' }, ctx), {});
  t.same(await callExec(registry, 'mine.get', ['G@role:db', 'network.get_hostname', 'compound'], {}, ctx), {});
  await t.rejects(callExec(registry, 'mine.get', [], {}, ctx), { message: /missing required argument 'tgt'/ });
});
