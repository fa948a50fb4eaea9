import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { bundleState, STAMP_FILE, stampFor } from '../src/bundle-check.js';

/** An install: a package's compiled module and build record, a bundled third-party file, a bundle stamped from them. */
function install(t: { teardown(fn: () => void): void }) {
  const root = mkdtempSync(path.join(tmpdir(), 'brine-bundle-check-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const pkg = path.join(root, 'packages/core');
  mkdirSync(path.join(pkg, 'dist'), { recursive: true });
  mkdirSync(path.join(root, 'node_modules/lib'), { recursive: true });
  const bundle = path.join(root, 'packages/cli/dist/bundle');
  mkdirSync(bundle, { recursive: true });
  const files = {
    module: path.join(pkg, 'dist/index.js'),
    info: path.join(pkg, 'tsconfig.tsbuildinfo'),
    outside: path.join(root, 'node_modules/lib/index.js'),
  };
  writeFileSync(files.module, 'export const a = 1;\n');
  writeFileSync(files.info, '{"version":"5"}');
  writeFileSync(files.outside, 'module.exports = 1;\n');
  const stamp = () => writeFileSync(path.join(bundle, STAMP_FILE), JSON.stringify(stampFor(bundle, [files.module, files.outside])));
  return { bundle, files, stamp };
}

const later = (file: string) => utimesSync(file, new Date(Date.now() + 5_000), new Date(Date.now() + 5_000));

t.test('the build records stand for their modules; third-party files are checked one by one', async (t) => {
  const { bundle, files, stamp } = install(t);
  stamp();
  t.equal(bundleState(bundle), 'fresh');
  later(files.info);
  t.equal(bundleState(bundle), 'stale', 'tsc -b compiled the package again');
  stamp();
  later(files.outside);
  t.equal(bundleState(bundle), 'stale', 'a bundled third-party file changed');
});

t.test('without the build records (a release), every module is checked', async (t) => {
  const { bundle, files, stamp } = install(t);
  stamp();
  rmSync(files.info);
  t.equal(bundleState(bundle), 'fresh');
  later(files.module);
  t.equal(bundleState(bundle), 'stale', 'a module changed');
});

t.test('no stamp: missing', async (t) => {
  const { bundle } = install(t);
  t.equal(bundleState(bundle), 'missing');
});
