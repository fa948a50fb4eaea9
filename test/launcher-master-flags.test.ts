import t from 'tap';
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * `brine master` through the launcher (and a release's bin/brine) runs with V8's helper threads
 * sized to the cores (one fewer, 1 to 4): four helpers on a 2-core master took the event loop's
 * core during collections; and with 4 MB semi-spaces, which halved its full collections' pauses.
 * A `node` and an `nproc` first on PATH stand in for the real ones and show what was run.
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

t.test('brine master: one helper thread on 2 cores, 4 at most; 4 MB semi-spaces', async (t) => {
  t.match(run(['master', '--config', 'm.yaml'], 2), /^--v8-pool-size=1 --max-semi-space-size=4 \S+\/dist\/bin\.js master --config m\.yaml$/);
  t.match(run(['master'], 1), /^--v8-pool-size=1 /, 'at least one');
  t.match(run(['master'], 4), /^--v8-pool-size=3 /);
  t.match(run(['master'], 32), /^--v8-pool-size=4 /, "at most Node's default");
});

t.test("NODE_OPTIONS's own settings are kept; other verbs get neither flag", async (t) => {
  t.match(run(['master'], 2, { NODE_OPTIONS: '--v8-pool-size=3' }), /^--max-semi-space-size=4 \S+\/dist\/bin\.js master$/);
  t.match(run(['master'], 2, { NODE_OPTIONS: '--max-semi-space-size=16' }), /^--v8-pool-size=1 \S+\/dist\/bin\.js master$/);
  t.match(run(['keys', 'list'], 2), /^\S+\/dist\/bin\.js keys list$/);
});

t.test('BRINE_NODE_FLAGS go to node, before the program', async (t) => {
  t.match(
    run(['master'], 2, { BRINE_NODE_FLAGS: '--cpu-prof --stack-size=900' }),
    /^--v8-pool-size=1 --max-semi-space-size=4 --cpu-prof --stack-size=900 \S+\/dist\/bin\.js master$/,
  );
  t.match(run(['keys'], 2, { BRINE_NODE_FLAGS: '--cpu-prof' }), /^--cpu-prof \S+\/dist\/bin\.js keys$/);
});

t.test("a release's bin/brine runs its own node with the same flags for brine master", async (t) => {
  const tree = path.join(dir, 'release');
  mkdirSync(path.join(tree, 'bin'), { recursive: true });
  mkdirSync(path.join(tree, 'node/bin'), { recursive: true });
  copyFileSync(path.resolve(path.dirname(launcher), '../../../packaging/brine.sh'), path.join(tree, 'bin/brine'));
  chmodSync(path.join(tree, 'bin/brine'), 0o755);
  writeFileSync(path.join(tree, 'node/bin/node'), '#!/bin/sh\necho "$@"\n');
  chmodSync(path.join(tree, 'node/bin/node'), 0o755);
  writeFileSync(path.join(dir, 'nproc'), '#!/bin/sh\necho 2\n');
  chmodSync(path.join(dir, 'nproc'), 0o755);
  const runRelease = (args: string[], env: Record<string, string> = {}) =>
    spawnSync(path.join(tree, 'bin/brine'), args, { encoding: 'utf8', env: { PATH: `${dir}:/usr/bin:/bin`, ...env } }).stdout.trim();
  t.match(
    runRelease(['master', '--config', 'm.yaml']),
    /^--v8-pool-size=1 --max-semi-space-size=4 \S+\/lib\/packages\/cli\/dist\/bin\.js master --config m\.yaml$/,
  );
  t.match(runRelease(['master'], { NODE_OPTIONS: '--v8-pool-size=2 --max-semi-space-size=8' }), /^\S+\/dist\/bin\.js master$/);
  t.match(runRelease(['minion']), /^\S+\/dist\/bin\.js minion$/);
});
