#!/usr/bin/env node
// `npm run build`'s third step, after scripts/bundle.mjs: a V8 startup snapshot of the CLI for the
// Node that runs the build, in packages/cli/dist/snapshot. The launcher (packages/cli/bin/brine)
// starts `node --snapshot-blob <blob> ...` for `brine local` and `brine call` when a blob made by
// this very node binary is there, so the process begins with Brine's modules loaded and its
// compile path warmed up (packages/cli/src/snapshot-entry.ts) instead of reading and compiling them.
// - main.cjs: the CLI's modules (the same compiled ones as the bundle) as one CommonJS file, the
//   form `--build-snapshot` takes; Brine's own packages and nunjucks/croner inside, any other
//   package loaded at run time from node_modules. stamp.json lists its inputs as the bundle's does:
//   the blob is used only while they are unchanged.
// - node-<version>-<platform>-<arch>.blob, and beside it .id: the path of the node binary that made
//   it, which the launcher compares without starting node (a blob only loads in the binary that
//   made it; any other aborts). Blobs of other Node versions stay (CI builds under 24
//   and 22 in one tree), but only while their modules are the current ones.
// BRINE_SNAPSHOT=off at build time: no blob (the launcher then runs the modules).
import { build, version as esbuildVersion } from 'esbuild';
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleState, STAMP_FILE, stampFor } from '../packages/cli/dist/bundle-check.js';
import { insideAnswer } from './bundle-inside.mjs';
import { withoutCodeCache } from '../packages/cli/dist/snapshot-code-cache.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'packages/cli/dist');
const out = path.join(dist, 'snapshot');
const name = `node-${process.version}-${process.platform}-${process.arch}`;
const blob = path.join(out, `${name}.blob`);

if (process.env.BRINE_SNAPSHOT === 'off') {
  rmSync(out, { recursive: true, force: true });
  console.log('snapshot: none (BRINE_SNAPSHOT=off)');
  process.exit(0);
}

/**
 * The node binary that makes the blob, for the launcher: its path (the launcher's `-ef` finds the
 * same file through any symlink, and `-nt` a binary changed since), then for people its size,
 * mtime, inode and device.
 */
function nodeId() {
  const st = statSync(process.execPath);
  return `${process.execPath}\n${st.size} ${Math.trunc(st.mtimeMs / 1000)} ${st.ino} ${st.dev}`;
}

/** The file's text, or undefined. */
function read(file) {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

// how the snapshot is made: this script and its helper, esbuild's version, and the install folder the blob holds
// (a built tree copied elsewhere keeps its stamps, but its blob would hand every run to the modules)
const maker = createHash('sha256')
  .update(readFileSync(fileURLToPath(import.meta.url)))
  .update(readFileSync(fileURLToPath(new URL('./bundle-inside.mjs', import.meta.url))))
  .update(readFileSync(path.join(dist, 'snapshot-code-cache.js')))
  .update(esbuildVersion)
  .update(root)
  .digest('hex')
  .slice(0, 16);
const fresh = bundleState(out) === 'fresh' && JSON.parse(read(path.join(out, STAMP_FILE)) ?? '{}').maker === maker;
if (fresh && read(blob.replace(/\.blob$/, '.id'))?.trim() === nodeId() && statSync(blob, { throwIfNoEntry: false })) {
  console.log(`snapshot: up to date (${path.relative(root, blob)})`);
  process.exit(0);
}

/**
 * What the bundle keeps outside stays outside (scripts/bundle.mjs checked that it resolves the
 * same from packages/cli/dist); and each module's import.meta.url is its own compiled file's URL,
 * computed when it is read (the install folder is known only at run time).
 */
const snapshotPlugin = {
  name: 'snapshot',
  setup(b) {
    b.onResolve({ filter: /^\.\/[a-z-]+\.js$/ }, (args) => {
      if (!args.importer.endsWith('/cli/dist/commands/index.js') || /^\.\/(local|call)\.js$/.test(args.path)) return undefined;
      return { path: args.path, namespace: 'not-in-snapshot' };
    });
    b.onLoad({ filter: /.*/, namespace: 'not-in-snapshot' }, (args) => ({
      contents: `throw new Error('brine: ${args.path} is not in the startup snapshot');`,
      loader: 'js',
    }));
    b.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith('@brine/')) return undefined;
      if (isBuiltin(args.path)) return { external: true };
      const inside = insideAnswer(args);
      if (inside !== null) return inside;
      return { external: true };
    });
    b.onLoad({ filter: /\/packages\/[^/]+\/dist\/.*\.js$/ }, (args) => {
      const text = readFileSync(args.path, 'utf8');
      if (!text.includes('import.meta.url')) return undefined;
      const rel = JSON.stringify(path.relative(root, args.path));
      return { contents: text.replaceAll('import.meta.url', `__brineUrl(${rel})`), loader: 'js' };
    });
  },
};

// made beside and put in place before the blob is made: a launcher starting meanwhile finds no
// half-made folder (and no blob for this node until it is whole)
const next = `${out}.next`;
rmSync(next, { recursive: true, force: true });
const result = await build({
  absWorkingDir: root,
  entryPoints: { main: path.join(dist, 'snapshot-entry.js') },
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node22',
  outdir: next,
  outExtension: { '.js': '.cjs' },
  metafile: true,
  // the snapshot builder's `require` loads Node's own modules only: the others (yaml, pino, ...)
  // come from the install's node_modules through __brineReq, set from the install folder
  banner: {
    js: [
      'var __snapReq = require;',
      "globalThis.__brineRoot = __snapReq('path').resolve(__dirname, '../../../..');",
      "globalThis.__brineReq = __snapReq('module').createRequire(globalThis.__brineRoot + '/packages/cli/dist/main.js');",
      "require = (id) => (__snapReq('module').isBuiltin(id) ? __snapReq(id) : globalThis.__brineReq(id));",
      "var __brineUrl = (rel) => __snapReq('url').pathToFileURL(globalThis.__brineRoot + '/' + rel).href;",
    ].join('\n'),
  },
  logLevel: 'warning',
  plugins: [snapshotPlugin],
});

const stamp = stampFor(
  out,
  Object.keys(result.metafile.inputs)
    .filter((input) => !input.startsWith('not-in-snapshot:'))
    .sort()
    .map((input) => path.join(root, input)),
);
writeFileSync(path.join(next, STAMP_FILE), JSON.stringify({ maker, ...stamp }, null, 1) + '\n');

// the blobs of other Node versions kept from before are kept only while made from these modules
const keep = [];
if (fresh) {
  for (const f of readdirSync(out, { withFileTypes: true })) {
    if (/^node-.*\.(blob|id)$/.test(f.name) && !f.name.startsWith(`${name}.`)) keep.push(f.name);
  }
}

for (const f of keep) renameSync(path.join(out, f), path.join(next, f));
rmSync(out, { recursive: true, force: true });
renameSync(next, out);

// The blob is made from main.cjs where it stays (stack traces name that file), under a name the
// launcher does not look at until it has started once; the .id, which the launcher looks for, last.
const started = performance.now();
const made = `${blob}.new`;
// the builder runs the warm-up in a temporary folder of its own (snapshot-entry.ts); Node warns
// that node:module and node:child_process are not yet verified in snapshots: Brine uses them only
// after the snapshot is restored
const building = spawnSync(process.execPath, ['--snapshot-blob', made, '--build-snapshot', path.join(out, 'main.cjs')], {
  stdio: ['ignore', 'inherit', 'pipe'],
  encoding: 'utf8',
  env: { ...process.env, NODE_OPTIONS: '' },
});
if (building.status !== 0) {
  console.error(`snapshot: building the blob failed (${building.status ?? building.signal}):\n${building.stderr}`);
  process.exit(1);
}
/** Whether the blob starts (`brine version` from it). */
function starts() {
  return spawnSync(process.execPath, ['--snapshot-blob', made, 'version'], {
    encoding: 'utf8',
    env: { ...process.env, NODE_OPTIONS: '', BRINE_SNAPSHOT: '' },
  });
}
// Node's code cache of its own modules, which a run never uses, read at every start: dropped
// (packages/cli/src/snapshot-code-cache.ts). A blob of another shape, or one that does not start
// without it, is kept whole.
const whole = readFileSync(made);
const slim = withoutCodeCache(whole);
if (slim) writeFileSync(made, slim);
else console.log("snapshot: no code cache found at the blob's end: kept as made");
let smoke = starts();
if (slim && (smoke.status !== 0 || !smoke.stdout.startsWith('brine '))) {
  console.log(`snapshot: the blob without its code cache does not start, kept as made: ${smoke.stderr}`);
  writeFileSync(made, whole);
  smoke = starts();
}
// a blob that fails to start (a package from node_modules loaded during the warm-up trips an
// assertion of Node's in every run) is not put in place
if (smoke.status !== 0 || !smoke.stdout.startsWith('brine ')) {
  console.error(`snapshot: the blob does not start (kept as ${path.relative(root, made)}): ${smoke.stderr}`);
  process.exit(1);
}
renameSync(made, blob);
writeFileSync(blob.replace(/\.blob$/, '.id'), nodeId() + '\n');
const mb = (statSync(blob).size / 1e6).toFixed(1);
console.log(`snapshot: ${path.relative(root, blob)} (${mb} MB, ${Math.round(performance.now() - started)} ms)`);
