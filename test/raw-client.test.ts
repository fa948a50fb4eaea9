import t from 'tap';
import { Cluster } from './helpers/cluster.js';
import { keyPair, RawClient } from './helpers/raw-client.js';

/** The hand-driven minion connection other tests use: a frame that never comes must fail the wait, not hang it. */
const cluster = new Cluster();
t.before(() => cluster.startMaster());
t.teardown(() => cluster.close());

t.test('next() gives up at its deadline, and frames still wake the waiters', async (t) => {
  const c = new RawClient(cluster.port);
  await c.open();
  t.teardown(() => c.ws.close());
  await t.rejects(c.next('no-such-frame', 300), /no frame no-such-frame within 300 ms/, 'the master sends nothing before a hello');
  // two waiters at once: the one whose frame comes gets it, the other one still times out
  const never = c.next('no-such-frame', 2000);
  const challenge = c.next('challenge');
  c.send({ v: 1, type: 'hello', minion: 'raw1', pub: keyPair().pub, version: 'x' });
  t.match(await challenge, { type: 'challenge' });
  await t.rejects(never, /within 2000 ms/);
});
