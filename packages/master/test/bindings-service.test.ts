import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createLogger } from '@brine/core';
import t from 'tap';
import { BindingsService } from '../src/bindings-service.js';
import { loadMasterConfig, MASTER_DEFAULTS, type MasterConfig } from '../src/config.js';
import { loadMasterTops } from '../src/master-tops.js';
import { StateService } from '../src/state-service.js';

function write(root: string, files: Record<string, string>): void {
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), text);
  }
}

function tmp(t: { teardown(fn: () => void): void }): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-bs-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const ntp = (servers: string) => `bindings_version: 1
name: 'ntp::default'
bind:
  - ['ntp.servers', ${servers}]
  - when: {osfamily: redhat}
    bind:
      - ['ntp.service', 'ntpd']
`;

t.test('files are parsed once per change of their contents, resolved per minion', async (t) => {
  const dir = tmp(t);
  write(dir, { 'ntp/bindings/default.yaml': ntp('[a]') });
  const svc = new BindingsService({ modules: [dir] }, ['node', 'osfamily', 'common']);
  const first = svc.load();
  t.equal(svc.load(), first, 'unchanged tree: the same load');
  t.same(svc.resolve('m1', { os_family: 'RedHat' }).pillar, { ntp: { servers: ['a'], service: 'ntpd' } });
  t.same(svc.resolve('m2', { os_family: 'Debian' }).pillar, { ntp: { servers: ['a'] } });
  write(dir, { 'ntp/bindings/default.yaml': ntp('[b]') });
  const second = svc.load('job1');
  t.not(second, first, 'new contents: loaded again');
  t.not(second.hash, first.hash);
  write(dir, { 'ntp/bindings/default.yaml': ntp('[c]') });
  t.equal(svc.load('job1'), second, 'a job keeps the tree it started with');
  t.same(svc.resolve('m2', { os_family: 'Debian' }).pillar, { ntp: { servers: ['c'] } });
  t.notOk(new BindingsService({}, []).enabled, 'no roots: nothing to do');
});

t.test('diagnostics name the file under its root, with the line', async (t) => {
  const dir = tmp(t);
  write(dir, { 'ntp/bindings/default.yaml': "bindings_version: 1\nname: 'ntp::default'\nbind:\n  - when: {planet: mars}\n    bind:\n      - ['x', 1]\n" });
  const r = new BindingsService({ modules: [dir] }, ['node', 'common']).resolve('m1', {});
  t.equal(r.diagnostics.length, 1);
  t.match(r.diagnostics[0], {
    code: 'BRINE_ERR_BINDINGS_UNKNOWN_CATEGORY',
    severity: 'error',
    file: path.join(dir, 'ntp/bindings/default.yaml'),
    line: 4,
    message: /^bindings: when: names the unknown category 'planet'/,
  });
});

t.test('StateService: classic pillar first, bindings on top; cache follows both trees; compile fails on a bindings error', async (t) => {
  const dir = tmp(t);
  write(path.join(dir, 'pillar'), { 'top.sls': "base:\n  '*':\n    - common\n", 'common.sls': 'ntp:\n  servers: [classic]\n  keep: yes\n' });
  write(path.join(dir, 'states'), {
    'top.sls': "base:\n  '*':\n    - ntp\n",
    'ntp.sls': "ntp:\n  test.nop:\n    - name: \"{{ pillar['ntp']['servers'] | join(',') }} {{ params.get('x', '-') }}\"\n",
  });
  write(path.join(dir, 'mods'), { 'ntp/bindings/default.yaml': ntp('[bound]') });
  const config = {
    ...MASTER_DEFAULTS,
    file_roots: { base: [path.join(dir, 'states')] },
    pillar_roots: { base: [path.join(dir, 'pillar')] },
    bindings_roots: { modules: [path.join(dir, 'mods')] },
    bindings_categories: ['node', 'osfamily', 'common'],
  } as MasterConfig;
  const ss = new StateService(config, await loadMasterTops({}, []), createLogger({ level: 'silent' }));
  const p = await ss.pillar('m1', { os_family: 'RedHat' });
  t.same(p.pillar, { ntp: { servers: ['bound'], keep: true, service: 'ntpd' } });
  t.same(Object.keys(p.explain).sort(), ['ntp.servers', 'ntp.service']);
  t.equal(await ss.pillar('m1', { os_family: 'RedHat' }), p, 'cached');
  write(path.join(dir, 'mods'), { 'ntp/bindings/default.yaml': ntp('[changed]') });
  t.same((await ss.pillar('m1', { os_family: 'RedHat' })).pillar.ntp, { servers: ['changed'], keep: true, service: 'ntpd' }, 'a bindings change is seen');
  const c = await ss.compile('m1', {}, { mode: 'highstate', params: { x: 'P' } });
  t.equal(c.low[0]!.name, 'changed P', 'params reach the templates');
  write(path.join(dir, 'mods'), { 'ntp/bindings/default.yaml': ntp('[a]').replace("'ntp::default'", "'wrong'") });
  const bad = await ss.compile('m1', {}, { mode: 'highstate' });
  t.equal(bad.failed, true);
  t.match(bad.errors[0], new RegExp(`^${path.join(dir, 'mods/ntp/bindings/default.yaml')}:2: error BRINE_ERR_BINDINGS_NAME_MISMATCH`));
});

t.test('config: bindings_roots and bindings_categories are checked; relative roots from the config folder', async (t) => {
  const dir = tmp(t);
  const file = path.join(dir, 'master.yaml');
  writeFileSync(file, 'bindings_roots: {site: [site], modules: [/abs/mods]}\nbindings_categories: [node, {name: dc, value: eu1}, common]\n');
  const cfg = loadMasterConfig(file);
  t.same(cfg.bindings_roots, { site: [path.join(dir, 'site')], modules: ['/abs/mods'] });
  t.same(cfg.bindings_categories, ['node', { name: 'dc', value: 'eu1' }, 'common']);
  writeFileSync(file, 'bindings_roots: {base: [x]}\n');
  t.throws(() => loadMasterConfig(file), { code: 'BRINE_ERR_MASTER_CONFIG', message: /bindings_roots' must be \{site: \[dirs\], modules: \[dirs\]\}/ });
  writeFileSync(file, 'bindings_categories: [node, 3]\n');
  t.throws(() => loadMasterConfig(file), { code: 'BRINE_ERR_MASTER_CONFIG' });
});
