/** `opts` in templates compiled on the master: its view of the minion's options, as Salt's keys. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createLogger } from '@brine/core';
import t from 'tap';
import { MASTER_DEFAULTS, type MasterConfig } from '../src/config.js';
import { loadMasterTops } from '../src/master-tops.js';
import { StateService } from '../src/state-service.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-opts-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const states = path.join(dir, 'states');
mkdirSync(states);
writeFileSync(path.join(states, 'top.sls'), "base:\n  '*':\n    - o\n");
writeFileSync(path.join(states, 'o.sls'), "o:\n  test.nop:\n    - opts: {{ opts | json }}\n    - master: {{ salt['config.get']('master') }}\n");

const config = { ...MASTER_DEFAULTS, file_roots: { base: [states] }, pillar_roots: {}, data_dir: path.join(dir, 'data') } as MasterConfig;
const s = new StateService(config, await loadMasterTops([], []), createLogger({ level: 'silent' }));
const grains = { os: 'Debian', master: 'salt.example' };

async function optsOf(req: Record<string, unknown>): Promise<Record<string, unknown>> {
  const out = await s.compile('web1', grains, { mode: 'highstate', ...req });
  if (out.failed) throw new Error(out.errors.join('\n'));
  return out.low[0]!.opts as Record<string, unknown>;
}

t.test("a daemon's job: salt-minion, remote; the minion's grains and pillar; saltenv as asked", async (t) => {
  const o = await optsOf({});
  t.match(o, {
    id: 'web1',
    __cli: 'salt-minion',
    file_client: 'remote',
    saltenv: null,
    pillarenv: null,
    test: false,
    renderer: 'jinja|yaml',
    master: 'salt.example',
    hash_type: 'sha256',
    state_top: 'salt://top.sls',
    grains: { os: 'Debian' },
    pillar: {},
  });
  t.equal((await optsOf({ saltenv: 'base' })).saltenv, 'base');
});

t.test('brine call with test=True: salt-call, test true (a compile of its own, not the cached one)', async (t) => {
  const o = await optsOf({ call: true, test: true });
  t.equal(o.__cli, 'salt-call');
  t.equal(o.test, true);
  t.equal((await optsOf({})).__cli, 'salt-minion', 'the daemon view is cached apart');
});

t.test("nothing of the master's: no data_dir, pki, token or its roots", async (t) => {
  const text = JSON.stringify(await optsOf({}));
  for (const secret of [config.data_dir, states, 'api_token', 'pki']) t.notMatch(text, secret);
});
