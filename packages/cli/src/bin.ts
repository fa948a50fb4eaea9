#!/usr/bin/env node
import './node-check.js';
import module from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { userCacheDir } from '@brine/core/cache-dir';
import { bundleState } from './bundle-check.js';

// V8's code cache for Brine's own modules: every `brine local` starts about 35 ms sooner. It
// lives in the user's private cache folder, never a shared one, because cached code is run.
const cacheDir = process.env.BRINE_COMPILE_CACHE === 'off' ? null : userCacheDir('v8');
if (cacheDir) module.enableCompileCache?.(cacheDir);

// The CLI as one bundle (scripts/bundle.mjs, part of `npm run build`): a handful of files to load
// instead of hundreds. Only when it is made from the modules compiled now; otherwise (only
// `tsc -b` ran since) the modules themselves, and a word about it. BRINE_BUNDLE=off: the modules.
const here = path.dirname(fileURLToPath(import.meta.url));
const bundle = path.join(here, 'bundle');
const state = process.env.BRINE_BUNDLE === 'off' ? 'off' : bundleState(bundle);
if (state === 'missing' || state === 'stale') {
  process.stderr.write(`brine: warning: the CLI's bundle is ${state} (run \`npm run build\`); running the separate modules\n`);
}
const { runMain } = (await import(state === 'fresh' ? './bundle/main.js' : './main.js')) as typeof import('./main.js');

await runMain(process.argv.slice(2));
