import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { loadMinionConfig } from '../src/config.js';
import { ResultSpool } from '../src/spool.js';

t.test('the spool keeps returns until acknowledged and remembers seen jobs', async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-spool-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'spool.db');
  let s = new ResultSpool(file);
  const ret = { jid: '20250101000000000001', fun: 'test.ping', success: true, retcode: 0, return: true, started: 'a', finished: 'b' };
  s.put(ret);
  t.ok(s.markSeen(ret.jid));
  t.notOk(s.markSeen(ret.jid));
  s.close();
  s = new ResultSpool(file);
  t.same(s.pending(), [ret], 'survives a restart');
  s.ack(ret.jid);
  t.equal(s.size(), 0);
  s.close();
});

t.test('config: defaults, host:port shorthand, unknown options warned about at once, unsafe ones refused', async (t) => {
  const c = loadMinionConfig(undefined, { id: 'x', master: 'salt.example:4606' });
  t.equal(c.master, 'salt.example');
  t.equal(c.master_port, 4606);
  const warned: string[] = [];
  loadMinionConfig(undefined, { id: 'x', master: 'm', nope: 1, recon_dfault: 2 } as never, (_e, msg) => warned.push(msg));
  t.match(warned, [/ignoring options Brine does not know: nope, recon_dfault \(did you mean recon_default\?\)/]);
  t.throws(() => loadMinionConfig(undefined, { id: 'x', master: 'm', disable_modules: ['cmd'] } as never), {
    code: 'BRINE_ERR_MINION_CONFIG',
    message: /disable_modules/,
  });
});

t.test('acknowledged state results leave the spool; the others stay for the next send', async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-spool-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const spool = new ResultSpool(path.join(dir, 'spool.db'));
  const item = (n: number) => ({ run_num: n, tag: `test_|-s${n}_|-s${n}_|-nop`, ret: { result: true } });
  spool.putStates('j1', 'state.apply', [item(0), item(1), item(2)]);
  spool.ackStates('j1', [0, 2]);
  t.same(
    spool.pendingStates().map((g) => [g.jid, g.results.map((r) => r.run_num)]),
    [['j1', [1]]],
  );
  spool.ackStates('j1', [1]);
  t.same(spool.pendingStates(), [], 'nothing is resent once all are acknowledged');
  spool.close();
});

t.test('config: custom grains the master would refuse (too deep, too large) are refused at start', async (t) => {
  let deep: Record<string, unknown> = { leaf: 1 };
  for (let i = 0; i < 70; i++) deep = { a: deep };
  t.throws(() => loadMinionConfig(undefined, { id: 'x', grains: { deep } }), {
    code: 'BRINE_ERR_MINION_CONFIG',
    message: /grains .*nested more than 64 levels/,
  });
  t.throws(() => loadMinionConfig(undefined, { id: 'x', grains: { big: 'x'.repeat(256 * 1024) } }), {
    code: 'BRINE_ERR_MINION_CONFIG',
    message: /grains .*bytes/,
  });
  t.same(loadMinionConfig(undefined, { id: 'x', grains: { roles: ['web'], ec2: { tags: { env: 'prod' } } } }).grains, {
    roles: ['web'],
    ec2: { tags: { env: 'prod' } },
  });
});
