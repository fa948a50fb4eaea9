import path from 'node:path';
import t from 'tap';
import { Cluster } from './helpers/cluster.js';
import { REPO } from './support/brine-cli.js';

// The example fleet's own tree, pillar and bindings (examples/fleet/master.yaml's roots): what the
// README shows of `brine pillar explain` must come out of it.
const ex = (p: string) => path.join(REPO, 'examples/fleet', p);
const cluster = new Cluster({
  minions: ['web1', 'web2'],
  minionConfig: () => ({ grains: { role: 'web' } }),
  master: { file_roots: { base: [ex('states')] }, pillar_roots: { base: [ex('pillar')] }, bindings_roots: { site: [ex('site')], modules: [ex('modules')] } },
});
t.before(async () => {
  await cluster.start();
});
t.teardown(() => cluster.close());

t.test("the README's pillar explain example, on the example fleet", async (t) => {
  const r = await cluster.brine(['pillar', 'explain', 'web2', 'motd.greeting']);
  t.equal(r.code, 0, r.stderr);
  t.equal(
    r.stdout,
    'motd.greeting: "hi web2"\n' +
      '    bound by: bindings/default.yaml:6 [site] default, when node=web2\n' +
      '    shadows:\n' +
      '      motd/bindings/default.yaml:4 [modules] motd::default, unconditional\n',
  );
});
