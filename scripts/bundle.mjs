#!/usr/bin/env node
// `npm run build`'s second step, after `tsc -b`: the CLI (packages/cli/dist/main.js and every
// module of Brine's own packages it reaches) as an ES-module bundle in packages/cli/dist/bundle,
// so a `brine` process reads a handful of files instead of hundreds. Code splitting keeps what the
// CLI imports on demand (a verb, the master, the exec modules) in chunks of its own, loaded only
// when used. Third-party packages stay outside, loaded from node_modules as before: native addons
// (better-sqlite3, pg-native), packages that read files beside their own code (pino's transport
// workers, fastify's plugins), and the same single instance of each for everyone. nunjucks is the
// exception: about 25 CommonJS files found and read at every start of a compile, it goes in
// whole with its two dependencies (only packages/jinja imports it; its optional chokidar stays out);
// and croner (core's schedules), one more file to find at every start otherwise.
// Beside the bundle, stamp.json lists the compiled modules it is made from, with their sizes and
// times: packages/cli/dist/bin.js runs the bundle only while all of them are unchanged.
import { build, version as esbuildVersion } from 'esbuild';
import { createHash } from 'node:crypto';
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleState, STAMP_FILE, stampFor } from '../packages/cli/dist/bundle-check.js';
import { insideAnswer } from './bundle-inside.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'packages/cli/dist');
const out = path.join(dist, 'bundle');

/** Brine's own packages go in; any other package stays outside, where it must resolve as before. */
const ownCodeOnly = {
  name: 'own-code-only',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (args.path.startsWith('@brine/') || args.pluginData === 'probe') return undefined;
      if (isBuiltin(args.path)) return { external: true };
      const inside = insideAnswer(args);
      if (inside !== null) return inside;
      // an external import is resolved again at run time from the bundle's folder: it must find
      // the same file the importing module finds (not another version in a package's node_modules)
      const probe = { kind: args.kind, pluginData: 'probe' };
      const from = await b.resolve(args.path, { ...probe, resolveDir: args.resolveDir });
      // (the bundle's folders have no node_modules: resolving from the folder above is the same)
      const there = await b.resolve(args.path, { ...probe, resolveDir: dist });
      if (from.path !== there.path) {
        return { errors: [{ text: `${args.path} is ${from.path} for ${args.importer} but ${there.path || there.errors[0]?.text} from the bundle` }] };
      }
      return { external: true };
    });
  },
};

// how the bundle is made: this script and esbuild's version (bin.js does not check these)
const maker = createHash('sha256')
  .update(readFileSync(fileURLToPath(import.meta.url)))
  .update(readFileSync(fileURLToPath(new URL('./bundle-inside.mjs', import.meta.url))))
  .update(esbuildVersion)
  .digest('hex')
  .slice(0, 16);
const current = (() => {
  try {
    return JSON.parse(readFileSync(path.join(out, STAMP_FILE), 'utf8')).maker;
  } catch {
    return undefined;
  }
})();
// nothing to do (`npm run release` after `npm run build`): the bundle in use is left alone
if (current === maker && bundleState(out) === 'fresh') {
  console.log(`bundle: up to date (${path.relative(root, out)})`);
  process.exit(0);
}

// made beside and put in place at the end, so that a `brine` starting meanwhile finds a whole bundle
const next = `${out}.next`;
rmSync(next, { recursive: true, force: true });
const result = await build({
  absWorkingDir: root,
  entryPoints: { main: path.join(dist, 'main.js') },
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node22',
  outdir: next,
  chunkNames: 'chunks/[name]-[hash]',
  metafile: true,
  // the CommonJS code inside (nunjucks) requires Node's own modules: a require for each file
  banner: { js: "import { createRequire as __brineRequire } from 'node:module';\nconst require = __brineRequire(import.meta.url);" },
  logLevel: 'warning',
  plugins: [ownCodeOnly],
});

const stamp = stampFor(
  out,
  Object.keys(result.metafile.inputs)
    .sort()
    .map((input) => path.join(root, input)),
);
// which modules each file of the bundle holds (for the tests of what a command loads; not read at run time)
const contents = {};
for (const [file, { inputs: held }] of Object.entries(result.metafile.outputs)) {
  contents[path.relative(next, path.join(root, file))] = Object.keys(held).map((i) => path.relative(root, path.join(root, i)));
}
writeFileSync(path.join(next, 'contents.json'), JSON.stringify(contents, null, 1) + '\n');
writeFileSync(path.join(next, STAMP_FILE), JSON.stringify({ maker, ...stamp }, null, 1) + '\n');
rmSync(out, { recursive: true, force: true });
renameSync(next, out);
const outputs = Object.keys(result.metafile.outputs).length;
console.log(`bundle: ${Object.keys(stamp.inputs).length} modules in ${outputs} files (${path.relative(root, out)})`);
