import t from 'tap';
import { readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, readFile, stat, readlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LowChunk, RunningDict } from '@brine/core';
import { chunkTag } from '@brine/core';
import { callState, defaultRegistry } from '../src/index.js';
import { ctxFor } from './helpers.js';

/** Salt's real p23-file-states results, replayed in a temp dir instead of /tmp/brine-conformance/p23. */
const here = dirname(fileURLToPath(import.meta.url));
const caseDir = join(here, '../../../test/fixtures/conformance/p23-file-states');
const SALT_ROOT = '/tmp/brine-conformance/p23';
const reg = defaultRegistry();

function relocate<T>(value: T, root: string): T {
  return JSON.parse(JSON.stringify(value).split(SALT_ROOT).join(root)) as T;
}

for (const [mode, file] of [
  ['real', 'salt-run.json'],
  ['test', 'salt-run-test.json'],
] as const) {
  t.test(`p23 file states, ${mode} run`, async (t) => {
    const base = await mkdtemp(join(tmpdir(), 'brine-p23-'));
    t.teardown(() => rm(base, { recursive: true, force: true }));
    const root = join(base, 'p23');
    const low = relocate(JSON.parse(readFileSync(join(caseDir, 'salt-low.json'), 'utf8')) as LowChunk[], root);
    const want = relocate(JSON.parse(readFileSync(join(caseDir, file), 'utf8')) as RunningDict, root);
    for (const chunk of low) {
      const got = await callState(reg, chunk, ctxFor(chunk, { test: mode === 'test', lowstate: low }));
      const w = want[chunkTag(chunk)];
      t.same({ result: got.result, comment: got.comment, changes: got.changes }, { result: w.result, comment: w.comment, changes: w.changes }, chunkTag(chunk));
    }
    if (mode === 'real') {
      t.equal(await readFile(join(root, 'motd'), 'utf8'), 'welcome\nto the host\nOf all smells, bread; of all tastes, salt.\n');
      t.equal((await stat(join(root, 'motd'))).mode & 0o777, 0o640);
      t.equal(await readlink(join(root, 'motd.link')), join(root, 'motd'));
      // a second run of the directory, link and absent states changes nothing and says so
      // (managed + append on one file flip-flop, in Salt as here)
      const owner = `${execFileSync('id', ['-un']).toString().trim()}:${execFileSync('id', ['-gn']).toString().trim()}`;
      const again = [];
      for (const c of [low[0], low[3], low[4]]) again.push(await callState(reg, c, ctxFor(c, { lowstate: low })));
      t.same(
        again.map((r) => [r.result, r.changes]),
        [
          [true, {}],
          [true, {}],
          [true, {}],
        ],
      );
      t.same(
        again.map((r) => r.comment),
        [
          `The directory ${root} is in the correct state`,
          `Symlink ${root}/motd.link is present and owned by ${owner}`,
          `File ${root}/never-existed is not present`,
        ],
      );
    } else {
      await t.rejects(stat(root), 'test mode created nothing');
    }
  });
}
