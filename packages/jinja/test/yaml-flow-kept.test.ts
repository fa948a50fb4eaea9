/**
 * A long flow collection on a line of its own where no key positions are kept (a formula's map
 * written with `| json` into each of its SLS files) is parsed once per process; every use gets a
 * copy of its own, equal to what the flow reader gives.
 */
import t from 'tap';
import { loadYaml } from '../src/yaml-load.js';
import { fastYaml, flowCacheStats } from '../src/yaml-fast.js';

const MAP = JSON.stringify({
  config: '/etc/apache2/apache2.conf',
  modules: ['ssl', 'rewrite', 'headers'],
  vhosts: { default: { port: 80, ssl: false, names: ["it's", 'a "name"', 'tab\\there'] } },
  wwwdir: '/srv',
  version: '2.4',
  sites: { a: { enabled: true, DocumentRoot: '/srv/a' }, b: { enabled: null } },
  pad: 'x'.repeat(120),
});

const sls = (id: string) => `${id}:\n  file.managed:\n    - context:\n        apache: ${MAP}\n`;

t.test("the same long flow in two IDs: parsed once, each a copy equal to the reader's", async (t) => {
  const before = flowCacheStats();
  const res = loadYaml(sls('one') + sls('two') + sls('three'));
  t.ok(res.fast, 'the fast path read it');
  const after = flowCacheStats();
  t.equal(after.kept - before.kept, 1, 'one flow kept');
  t.equal(after.hits - before.hits, 2, 'the two others found it');
  const value = res.value as Record<string, { 'file.managed': Array<{ context: { apache: Record<string, unknown> } }> }>;
  const apache = (id: string) => value[id]!['file.managed'][0]!.context.apache;
  const full = loadYaml(sls('one'), { fast: false }).value as typeof value;
  for (const id of ['one', 'two', 'three']) t.same(apache(id), full.one!['file.managed'][0]!.context.apache, `${id} as the full parser reads it`);
  t.not(apache('one'), apache('two'), 'each ID its own copy');
  (apache('one').modules as string[]).push('changed');
  t.same(apache('two').modules, ['ssl', 'rewrite', 'headers'], 'a change to one copy is not seen in another');
  const again = loadYaml(sls('four')).value as typeof value;
  t.same(again.four!['file.managed'][0]!.context.apache.modules, ['ssl', 'rewrite', 'headers'], 'nor by a later text');
});

t.test('a short flow, or one where positions are kept, is not kept', async (t) => {
  const before = flowCacheStats();
  loadYaml(`a:\n  test.nop:\n    - names: ["x", "y"]\n`);
  // positions kept down to argument maps (the reading diagnostics use): a flow there is read each time
  t.ok(fastYaml(`b:\n  file.managed:\n    - ${MAP}\n`));
  t.same(flowCacheStats(), before);
});
