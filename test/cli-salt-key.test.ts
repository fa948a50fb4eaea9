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

  // salt-key -l: one state's keys, named as salt-key names them
  const acc = await cluster.brine(['key', '-l', 'acc']);
  t.equal(acc.code, 0, acc.stderr);
  t.equal(acc.stdout, 'Accepted Keys:\nweb1\n');
  const un = await cluster.brine(['key', '-l', 'un', '--out', 'json']);
  t.same(JSON.parse(un.stdout), { pending: ['web2'] });
  const every = await cluster.brine(['key', '-l', 'all']);
  t.match(every.stdout, /^Accepted Keys:\nweb1\nDenied Keys:\nUnaccepted Keys:\nweb2\nRejected Keys:\n$/);
  const bogus = await cluster.brine(['key', '-l', 'accept']);
  t.equal(bogus.code, 1);
  t.match(bogus.stderr, /-l takes one of acc, accepted, un, unaccepted, pre, rej, rejected, den, denied, all, not 'accept'/);

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

t.test('key lists: every Salt outputter name, colour on request, --no-color wins', async (t) => {
  const yaml = await cluster.brine(['key', 'list', '--out', 'yaml']);
  t.match(yaml.stdout, /^accepted:\n {2}- web2\npending:/);
  const raw = await cluster.brine(['key', '-L', '--out', 'raw']);
  t.match(raw.stdout, /^\{'accepted': \['web2'\], 'pending': \[('web1')?\], 'rejected': \[\], 'denied': \[\]\}\n$/);
  const quiet = await cluster.brine(['key', '-L', '--out', 'quiet']);
  t.equal(quiet.stdout, '');
  const bad = await cluster.brine(['key', '-L', '--out', 'xml']);
  t.equal(bad.code, 1);
  t.match(bad.stderr, /unknown output 'xml' \(one of text, highstate, json, yaml, nested, raw, txt, quiet, key\)/);
  const color = await cluster.brine(['key', '-L', '--force-color']);
  t.match(color.stdout, /\x1b\[1;32mAccepted Keys:\x1b\[0m\n\x1b\[0;32mweb2\x1b\[0m\n/);
  const plain = await cluster.brine(['key', '-L', '--force-color', '--no-color']);
  t.notMatch(plain.stdout, /\x1b/);
});
