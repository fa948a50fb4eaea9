import t from 'tap';
import { Cluster } from './helpers/cluster.js';
import { until } from './helpers/proc.js';

// keys stay pending: the salt-key flags decide what happens to them
const cluster = new Cluster({ autosign: false });
t.before(async () => {
  await cluster.start();
  cluster.startMinion('web1');
  cluster.startMinion('web2');
  await until(async () => {
    const keys = await cluster.client.get<{ pending: string[] }>('/v1/keys');
    return keys.pending.length === 2 ? true : undefined;
  }, 'two pending keys');
});
t.teardown(() => cluster.close());

t.test("salt-key's flags: -L lists, -a accepts one, -A all, -f fingers, -d deletes", async (t) => {
  const list = await cluster.brine(['key', '-L']);
  t.equal(list.code, 0);
  t.match(list.stdout, /Unaccepted Keys:\nweb1\nweb2\n/);

  const one = await cluster.brine(['key', '-a', 'web1', '-y']);
  t.equal(one.code, 0, one.stderr);
  t.match(one.stdout, /Key for minion web1 accepted\./);
  t.notMatch(one.stdout, /web2/);

  const both = await cluster.brine(['key', '-A', '-L']);
  t.equal(both.code, 1, 'two actions at once are refused, nothing is done');
  t.match(both.stderr, /choose one key action, not -L and -A/);
  t.same((await cluster.client.get<{ pending: string[] }>('/v1/keys')).pending, ['web2']);

  const all = await cluster.brine(['key', '-A', '-y']);
  t.equal(all.code, 0, all.stderr);
  t.match(all.stdout, /Key for minion web2 accepted\./);

  const finger = await cluster.brine(['key', '-F']);
  t.match(finger.stdout, /^Local Keys:\nmaster\.crt: {2}\S+\nAccepted Keys:\nweb1: {2}\S+\nweb2: {2}\S+\n$/);
  const f1 = await cluster.brine(['key', '-f', 'web1']);
  t.match(f1.stdout, /Accepted Keys:\nweb1: {2}\S+\n$/);

  const mixed = await cluster.brine(['key', 'list', '-d', 'web1']);
  t.equal(mixed.code, 1);
  t.match(mixed.stderr, /cannot be mixed/);

  const del = await cluster.brine(['key', '-d', 'web1', '-y']);
  t.equal(del.code, 0, del.stderr);
  t.match(del.stdout, /Key for minion web1 deleted\./);
});
