import t from 'tap';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * `brine master` through the launcher runs with V8's helper threads sized to the cores (one fewer,
 * 1 to 4): four helpers on a 2-core master took the event loop's core during collections. A
 * `node` and an `nproc` first on PATH stand in for the real ones and show what the launcher ran.
 */
const launcher = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../packages/cli/bin/brine');
const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-launcher-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
writeFileSync(path.join(dir, 'node'), '#!/bin/sh\necho "$@"\n');
chmodSync(path.join(dir, 'node'), 0o755);

function run(args: string[], cores: number, env: Record<string, string> = {}): string {
  writeFileSync(path.join(dir, 'nproc'), `#!/bin/sh\necho ${cores}\n`);
  chmodSync(path.join(dir, 'nproc'), 0o755);
  const r = spawnSync(launcher, args, { encoding: 'utf8', env: { PATH: `${dir}:/usr/bin:/bin`, BRINE_SNAPSHOT: 'off', ...env } });
  if (r.status !== 0) throw new Error(r.stderr);
  return r.stdout.trim();
}

t.test('brine master: one helper thread on 2 cores, 4 at most', async (t) => {
  t.match(run(['master', '--config', 'm.yaml'], 2), /^--v8-pool-size=1 \S+\/dist\/bin\.js master --config m\.yaml$/);
  t.match(run(['master'], 1), /^--v8-pool-size=1 /, 'at least one');
  t.match(run(['master'], 4), /^--v8-pool-size=3 /);
  t.match(run(['master'], 32), /^--v8-pool-size=4 /, "at most Node's default");
});

t.test("NODE_OPTIONS's own pool size is kept; other verbs get no pool flag", async (t) => {
  t.match(run(['master'], 2, { NODE_OPTIONS: '--v8-pool-size=3' }), /^\S+\/dist\/bin\.js master$/);
  t.match(run(['keys', 'list'], 2), /^\S+\/dist\/bin\.js keys list$/);
});

t.test('BRINE_NODE_FLAGS go to node, before the program', async (t) => {
  t.match(run(['master'], 2, { BRINE_NODE_FLAGS: '--cpu-prof --stack-size=900' }), /^--v8-pool-size=1 --cpu-prof --stack-size=900 \S+\/dist\/bin\.js master$/);
  t.match(run(['keys'], 2, { BRINE_NODE_FLAGS: '--cpu-prof' }), /^--cpu-prof \S+\/dist\/bin\.js keys$/);
});
