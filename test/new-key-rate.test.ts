import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { Cluster } from './helpers/cluster.js';
import { keyPair, RawClient } from './helpers/raw-client.js';

type Keys = { pending: string[] };

// three new keys a minute from one address, many more from all of them
const cluster = new Cluster({
  minions: ['steady'],
  master: { autosign: ['steady'], new_keys_per_minute: 3, new_keys_per_minute_total: 100 },
});
const states = path.join(cluster.dir, 'states');
mkdirSync(states);
writeFileSync(path.join(states, 'top.sls'), "base:\n  '*':\n    - noop\n");
writeFileSync(path.join(states, 'noop.sls'), 'noop:\n  test.nop: []\n');
cluster.setMasterOptions({ file_roots: { base: [states] } });
t.before(() => cluster.start());
t.teardown(() => cluster.close());

/** One hello with a new id and key from `source`; what the master answers (key state or error code). */
async function hello(minion: string, source: string): Promise<string> {
  const c = new RawClient(cluster.port, source);
  await c.open();
  c.send({ v: 1, type: 'hello', minion, pub: keyPair().pub, version: 'x' });
  const m = await c.next();
  c.ws.close();
  return (m.state ?? m.code) as string;
}

t.test('a flood of new ids from one address does not lock out a new minion on another', async (t) => {
  const flood: string[] = [];
  for (let i = 0; i < 20; i++) flood.push(await hello(`flood${i}`, '127.0.0.1'));
  t.same(flood.slice(0, 3), ['pending', 'pending', 'pending']);
  t.same(new Set(flood.slice(3)), new Set(['BRINE_ERR_MASTER_KEY_RATE_LIMITED']), 'the flooding address is held to its rate');
  t.equal(await hello('genuine', '127.0.0.2'), 'pending', 'a genuine new minion elsewhere still enrolls');
  const keys = await cluster.client.get<Keys>('/v1/keys');
  t.ok(keys.pending.includes('genuine'));
  t.equal(keys.pending.filter((k) => k.startsWith('flood')).length, 3);
  // an accepted minion's highstate still completes after the flood
  const hs = await cluster.run('steady', 'state.apply', [], { timeout: 60 });
  t.equal(hs.returns.steady?.success, true, 'the highstate completes');
});
