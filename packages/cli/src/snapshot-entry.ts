// The entry of `brine`'s startup snapshot: scripts/snapshot.mjs bundles it (as CommonJS, with the
// whole CLI) and builds the blob from it; packages/cli/bin/brine starts it for `local` and `call`.
import { spawnSync } from 'node:child_process';
import Module, { createRequire, isBuiltin } from 'node:module';
import path from 'node:path';
import { setFlagsFromString, startupSnapshot } from 'node:v8';
import { forgetBeforeSnapshot } from '@brine/core';
import { bundleState } from './bundle-check.js';
import { tierFlagsGiven } from './local/jit-tiering.js';
import { main, runMain } from './main.js';
import { warmUp } from './snapshot-warm-up.js';

declare global {
  // set by the bundle's banner (scripts/snapshot.mjs): the install folder it was built in, and
  // `require` for packages outside the bundle, from that folder's node_modules
  var __brineRoot: string;
  var __brineReq: NodeJS.Require;
}

/** The folder of the blob this process was started from (`--snapshot-blob <file>` or `=<file>`). */
function blobFolder(): string | undefined {
  const args = process.execArgv;
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--snapshot-blob') return args[i + 1] && path.dirname(path.resolve(args[i + 1]));
    if (args[i].startsWith('--snapshot-blob=')) return path.dirname(path.resolve(args[i].slice(16)));
  }
  return undefined;
}

/**
 * Runs the CLI as `node packages/cli/dist/bin.js` would, in a child: the snapshot's modules are
 * not the compiled ones any more (only `tsc -b` ran since the build), or the install moved.
 */
function runModules(argv: string[], root: string, why: string): void {
  if (process.env.BRINE_SNAPSHOT === 'show') process.stderr.write(`brine: start: modules (${why})\n`);
  const r = spawnSync(process.execPath, [path.join(root, 'packages/cli/dist/bin.js'), ...argv], { stdio: 'inherit' });
  if (r.signal) process.kill(process.pid, r.signal);
  process.exitCode = r.status ?? 1;
}

async function restored(): Promise<void> {
  // a run from the snapshot is short: V8's baseline compiles (~390 functions, ~3 ms of a formula's
  // ~80 ms) pay off less than they cost; the interpreter, then the optimising tiers, do the rest
  // (not when the process was given tier flags of its own: those decide)
  if (!tierFlagsGiven()) setFlagsFromString('--no-sparkplug');
  // set by the launcher for this process alone (its malloc), not for the programs a run starts
  if (process.env.BRINE_GLIBC_TUNABLES === 'launcher') {
    delete process.env.GLIBC_TUNABLES;
    delete process.env.BRINE_GLIBC_TUNABLES;
  }
  const argv = process.argv.slice(1);
  const here = blobFolder() ?? path.join(globalThis.__brineRoot, 'packages/cli/dist/snapshot');
  const root = path.resolve(here, '../../../..');
  if (root !== globalThis.__brineRoot) {
    runModules(argv, root, `the snapshot was made in ${globalThis.__brineRoot}`);
    return;
  }
  if (bundleState(here) !== 'fresh') {
    runModules(argv, root, 'the snapshot is older than the compiled modules');
    return;
  }
  globalThis.__brineReq = createRequire(path.join(root, 'packages/cli/dist/main.js'));
  await runMain(argv);
  exitWhenDone();
}

/**
 * Once the command is done and only the standard streams are still open, with nothing queued on
 * them: exit now. Node's own end would free the restored heap page by page (about 1.5 ms of a
 * 40 ms run). Anything else still pending (a timer, a child, a file write) is waited for as before.
 */
function exitWhenDone(): void {
  const streams = [process.stdout, process.stderr];
  if (streams.some((s) => s.writableLength > 0)) return;
  const handles = streams.filter((s) => (s as unknown as { _handle?: object })._handle).length;
  const left = process.getActiveResourcesInfo();
  if (left.length <= handles && left.every((r) => r === 'TTYWrap' || r === 'PipeWrap')) process.exit();
}

function exitOnError(err: unknown): void {
  process.stderr.write(`brine: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
}

// (the builder takes the snapshot once its event loop is empty: after the warm-up)
if (startupSnapshot.isBuildingSnapshot()) {
  // a package from node_modules loaded now would make every run of the blob fail an assertion of
  // Node's: the warm-up fails instead, naming it
  const loader = Module as unknown as { _load(id: string, ...rest: unknown[]): unknown };
  const load = loader._load;
  loader._load = function (this: unknown, id: string, ...rest: unknown[]) {
    if (!isBuiltin(id)) throw new Error(`the warm-up loaded ${id} from node_modules`);
    return load.call(this, id, ...rest);
  };
  void warmUp(main).then(
    () => {
      loader._load = load;
      // what every restored run calls first, run once now so that the snapshot holds it compiled
      forgetBeforeSnapshot();
      bundleState(path.join(globalThis.__brineRoot, 'packages/cli/dist/snapshot'));
      blobFolder();
      startupSnapshot.setDeserializeMainFunction(() => restored().catch(exitOnError));
    },
    (err: unknown) => {
      process.stderr.write(`brine snapshot: ${String(err)}\n`);
      process.exit(1);
    },
  );
}
