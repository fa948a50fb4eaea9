import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { bindingsNameOf, dirBindingsSource, formatExplain, loadBindings, memoryBindingsSource, mergeWithClassicPillar, resolveBindings } from '../src/index.js';

const NTP = `bindings_version: 1
name: 'ntp::default'
bind:
  - ['ntp.servers', ['pool.ntp.org']]
  - when: {node: web1}
    bind:
      - ['ntp.servers', ['web1.ntp.example.com']]
  - when: {osfamily: RedHat}
    bind:
      - ['ntp.service', 'ntpd']
  - ['ntp.service', 'ntp']
`;

t.test('bindings names follow file locations', async (t) => {
  t.equal(bindingsNameOf('awesome/bindings/default.yaml'), 'awesome::default');
  t.equal(bindingsNameOf('awesome/bindings/for_x/default.yaml'), 'awesome::for_x::default');
  t.equal(bindingsNameOf('bindings/default.yaml'), 'default');
});

t.test('one load serves many minions', async (t) => {
  const loaded = loadBindings(memoryBindingsSource({ modules: { 'ntp/bindings/default.yaml': NTP } }));
  t.same(loaded.diagnostics, []);
  const web1 = resolveBindings({ files: loaded.value, minion: { id: 'web1', grains: { os_family: 'Debian' } } });
  const db1 = resolveBindings({ files: loaded.value, minion: { id: 'db1', grains: { os_family: 'RedHat' } } });
  t.same(web1.value.pillar, { ntp: { servers: ['web1.ntp.example.com'], service: 'ntp' } });
  t.same(db1.value.pillar, { ntp: { servers: ['pool.ntp.org'], service: 'ntpd' } });
  t.same([...web1.diagnostics, ...db1.diagnostics], []);
});

t.test('a directory source walks only bindings folders, site above modules', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'brine-bindings-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const write = (path: string, text: string) => {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
  };
  write('modules/ntp/bindings/default.yaml', NTP);
  write('modules/ntp/files/ignored.yaml', 'not: bindings\n');
  write('site/bindings/default.yaml', "bindings_version: 1\nname: default\nbind:\n  - ['ntp.service', 'chronyd']\n");
  const source = dirBindingsSource({ site: [join(dir, 'site')], modules: [join(dir, 'modules'), join(dir, 'missing')] });
  t.same(
    source.list().map((r) => `${r.layer} ${r.path}`),
    ['site bindings/default.yaml', 'modules ntp/bindings/default.yaml'],
  );
  const r = resolveBindings({ files: source, minion: { id: 'db1', grains: { os_family: 'RedHat' } } });
  t.same(r.diagnostics, []);
  t.same(r.value.pillar, { ntp: { servers: ['pool.ntp.org'], service: 'chronyd' } });
  t.equal(r.value.explain['ntp.service'].winner.root, join(dir, 'site'));
  t.equal(r.value.explain['ntp.service'].shadowed.length, 2);
});

t.test('classic pillar first, bindings on top', async (t) => {
  const merged = mergeWithClassicPillar({ ntp: { servers: ['classic'], keep: true }, other: 1 }, { ntp: { servers: ['bound'] } });
  t.same(merged, { ntp: { servers: ['bound'], keep: true }, other: 1 });
});

t.test('explaining a name nobody binds', async (t) => {
  const r = resolveBindings({ files: memoryBindingsSource({}), minion: { id: 'web1', grains: {} } });
  t.equal(formatExplain(r.value.explain, 'nope'), 'nope: not bound for this minion\n');
});
