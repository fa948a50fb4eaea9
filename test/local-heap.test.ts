import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { chainTree as writeTree } from './helpers/chain-tree.js';

// `brine local` from the startup snapshot leaves the old generation room for a large compile:
// show_lowstate of 10,000 states (bench/salt-compare.mjs lowstate-10k) keeps about 20 MB alive,
// and with V8's first limit (~18 MB) a full mark-compact ran just before the process exited
// (its concurrent marking ~15-40 ms of CPU on the second core, and a pause on the main thread).
const LAUNCHER = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'packages/cli/bin/brine');

let dir = '';
t.before(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'brine-heap-'));
});
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

/** 100 files of 100 states, each requiring the one before (salt-compare's chain). */
function chainTree(): string {
  const root = path.join(dir, 'tree');
  writeTree(root, 100, 100);
  return root;
}

// Node 22's V8 (12.4) runs its first full GC near 19 MB whatever the initial old-space size; the
// flag takes effect from Node 24's V8 on, so only there is its absence a fault.
const V8_HONOURS_FLAG = Number(process.versions.node.split('.')[0]) >= 24;

t.test(
  'show_lowstate of 10,000 states runs without a full garbage collection',
  { skip: V8_HONOURS_FLAG ? false : 'Node 22 ignores --initial-old-space-size here' },
  async (t) => {
    const root = chainTree();
    // V8's GC trace, turned on from a preload (NODE_OPTIONS takes no --trace-gc)
    const preload = path.join(dir, 'trace-gc.cjs');
    writeFileSync(preload, "require('node:v8').setFlagsFromString('--trace-gc');\n");
    const r = spawnSync(LAUNCHER, ['local', 'state.show_lowstate', '--file-root', root, '--id', 'anchor', '--out', 'json'], {
      encoding: 'utf8',
      maxBuffer: 1 << 30,
      env: {
        ...process.env,
        PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ''}`,
        BRINE_SNAPSHOT: 'show',
        NODE_OPTIONS: `--require ${preload}`,
      },
    });
    t.equal(r.status, 0, r.stderr);
    t.match(r.stderr, /brine: start: snapshot /, 'started from the snapshot (npm run build made it)');
    t.match(r.stdout, /Scavenge/, 'the GC trace is there');
    t.notMatch(r.stdout, /Mark-Compact/);
    t.match(r.stdout, /"__id__": "s_99_99"/);
  },
);
