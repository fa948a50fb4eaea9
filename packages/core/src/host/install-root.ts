import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { coreErrors } from '../errors.js';
import { forgetAtSnapshotRestore } from './snapshot-restore.js';

let root: string | undefined;
forgetAtSnapshotRestore(() => (root = undefined));

/**
 * The folder Brine is installed in: the repository, or a release's lib/ (package.json, config/,
 * packages/, node_modules/). Found by looking upwards from this module for packages/core, not by
 * counting `..`: the CLI's bundle (packages/cli/dist/bundle) runs this code from another folder
 * than packages/core/dist, and the tests run it from packages/core/src.
 */
export function installRoot(): string {
  if (root !== undefined) return root;
  const start = path.dirname(fileURLToPath(import.meta.url));
  for (let dir = start; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'packages', 'core', 'package.json'))) return (root = dir);
    if (path.dirname(dir) === dir) {
      throw coreErrors.make('BRINE_ERR_CORE_INTERNAL', { detail: `Brine's install folder (with packages/core) is not above ${start}` });
    }
  }
}

/** A file of one of Brine's packages (`packageFile('master', 'ui')`), bundled or not. */
export function packageFile(pkg: string, ...rest: string[]): string {
  return path.join(installRoot(), 'packages', pkg, ...rest);
}

/**
 * `require` as a module of package `pkg` has it: its own dependencies (packages/jinja has its own
 * nunjucks), wherever the calling code was bundled to.
 */
export function packageRequire(pkg: string): NodeJS.Require {
  return createRequire(packageFile(pkg, 'package.json'));
}
