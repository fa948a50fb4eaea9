import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { parse, stringify } from 'yaml';
import { Cluster } from './helpers/cluster.js';
import { brine } from './support/brine-cli.js';

const cluster = new Cluster({});
// the cluster's own config asks the kernel for a port: this one names the port it got
let config = '';
t.before(async () => {
  await cluster.start();
  config = path.join(cluster.dir, 'master-fixed.yaml');
  writeFileSync(config, stringify({ ...parse(readFileSync(cluster.masterConfig, 'utf8')), api_port: cluster.apiPort }));
});
t.teardown(() => cluster.close());

// the environment of the test runner may name a master: each run sets what it means to test
const clean = { BRINE_MASTER_CONFIG: '', BRINE_API_URL: '', BRINE_API_TOKEN: '' };

t.test('the master is found from $BRINE_MASTER_CONFIG when --config is not given', async (t) => {
  const r = await brine(['jobs', 'last'], { env: { ...clean, BRINE_MASTER_CONFIG: config } });
  t.equal(r.code, 0, r.stderr);
  const viaFlag = await brine(['jobs', 'last', '--config', config], { env: clean });
  t.equal(viaFlag.code, 0, viaFlag.stderr);
});

t.test('with no master config the error says where it looked and what to do', async (t) => {
  const r = await brine(['jobs', 'last'], { env: clean, cwd: cluster.dir });
  t.equal(r.code, 1);
  t.match(r.stderr, /cannot read the API token/);
  t.match(r.stderr, /--config MASTER_CONFIG/);
  t.match(r.stderr, /BRINE_MASTER_CONFIG/);
  t.match(r.stderr, /BRINE_API_URL and BRINE_API_TOKEN/);
});

t.test('a master that does not answer: a coded error saying how to start one', async (t) => {
  const r = await brine(['jobs', 'last'], { env: { ...clean, BRINE_API_URL: 'http://127.0.0.1:9', BRINE_API_TOKEN: 'x' } });
  t.equal(r.code, 1);
  t.match(
    r.stderr,
    /BRINE_ERR_MASTER_UNREACHABLE: cannot reach the master API at http:\/\/127\.0\.0\.1:9: .*is the master running\? Start it with 'brine master --config MASTER_CONFIG'/,
  );
});
