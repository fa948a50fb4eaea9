import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createLogger } from '@brine/core';
import { askWithMjs } from '@brine/compiler';
import t, { type Test } from 'tap';
import { MASTER_DEFAULTS, type MasterConfig } from '../src/config.js';
import { loadMasterTops } from '../src/master-tops.js';
import { StateService } from '../src/state-service.js';

/**
 * `#!mjs` SLS files on the master: off unless mjs_renderer (the compile fails naming the option),
 * on they render in a confined process with the minion's grains and pillar, and the minion is
 * never asked (the compile has no host to ask here at all).
 */
const log = createLogger({ level: 'silent' });

async function service(t: Test, mjs: boolean) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-mjs-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(path.join(dir, 'pillar'));
  writeFileSync(path.join(dir, 'top.sls'), "base:\n  '*':\n    - app\n");
  writeFileSync(
    path.join(dir, 'app.sls'),
    '#!mjs\nexport default ({ id, grains, pillar }) => Object.fromEntries(pillar.users.map((u) => [`user_${u}`, { "test.nop": [{ name: `${u}@${id} (${grains.os})` }] }]));\n',
  );
  writeFileSync(path.join(dir, 'pillar', 'top.sls'), "base:\n  '*':\n    - users\n");
  writeFileSync(path.join(dir, 'pillar', 'users.sls'), 'users: [ann, bob]\n');
  const config = { ...MASTER_DEFAULTS, file_roots: { base: [dir] }, pillar_roots: { base: [path.join(dir, 'pillar')] }, mjs_renderer: mjs } as MasterConfig;
  return new StateService(config, await loadMasterTops(config.master_tops, config.master_tops_dirs), log);
}

t.test('off by default: the compile fails naming mjs_renderer', async (t) => {
  const s = await service(t, false);
  const r = await s.compile('web1', { id: 'web1', os: 'Debian' }, { mode: 'highstate' }, askWithMjs(undefined, s.mjs));
  t.ok(r.failed);
  t.match(r.errors.join('\n'), /app\.sls.*BRINE_ERR_COMPILE_MJS.*mjs_renderer: true/);
});

t.test("on: the module renders with the minion's grains and pillar", async (t) => {
  const s = await service(t, true);
  const r = await s.compile('web1', { id: 'web1', os: 'Debian' }, { mode: 'highstate' }, askWithMjs(undefined, s.mjs));
  t.notOk(r.failed, r.errors.join('\n'));
  t.same(
    r.low.map((c) => [c.__id__, c.name]),
    [
      ['user_ann', 'ann@web1 (Debian)'],
      ['user_bob', 'bob@web1 (Debian)'],
    ],
  );
});
