import t from 'tap';
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chunkTag, type LowChunk, type RunningDict } from '@brine/core';
import { callState, defaultRegistry } from '../src/index.js';
import { ctxFor } from './helpers.js';

/**
 * Salt's recorded results for every test/cmd chunk whose outcome is the function's own (no
 * requisite verdict, no unless/onlyif/creates: those are the runtime's), in both modes.
 */
const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '../../../test/fixtures/conformance');
// retry too: its comments are the runtime's
const CONDITIONS = ['unless', 'onlyif', 'creates', 'onchanges', 'onchanges_any', 'onfail', 'onfail_any', 'prereq', 'retry'];
const registry = defaultRegistry();
let cases = 0;

for (const c of readdirSync(root).filter((d) => existsSync(join(root, d, 'salt-low.json')))) {
  const low = JSON.parse(readFileSync(join(root, c, 'salt-low.json'), 'utf8')) as LowChunk[] | string[];
  if (!Array.isArray(low) || typeof low[0] !== 'object') continue;
  for (const mode of ['salt-run.json', 'salt-run-test.json']) {
    const running = JSON.parse(readFileSync(join(root, c, mode), 'utf8')) as RunningDict | string[];
    if (Array.isArray(running)) continue;
    // The chunks whose outcome is the function's own; a case without any has no test here (it
    // would pass having compared nothing).
    const own = (low as LowChunk[]).filter((ch) => {
      if (ch.state !== 'test' && ch.state !== 'cmd') return false;
      if (CONDITIONS.some((k) => k in ch)) return false;
      const want = running[chunkTag(ch)];
      return want !== undefined && !/requisite|State was not run/.test(want.comment);
    });
    if (own.length === 0) continue;
    cases++;
    t.test(`${c} ${mode}`, async (t) => {
      for (const ch of own) {
        const want = running[chunkTag(ch)]!;
        const got = await callState(registry, ch, ctxFor(ch, { test: mode === 'salt-run-test.json', lowstate: low as LowChunk[] }));
        const wantChanges = { ...want.changes };
        const gotChanges = { ...got.changes };
        delete wantChanges.pid;
        delete gotChanges.pid;
        t.same(
          { result: got.result, comment: got.comment, changes: gotChanges },
          { result: want.result, comment: want.comment, changes: wantChanges },
          chunkTag(ch),
        );
      }
    });
  }
}

t.test('the conformance fixtures hold test/cmd chunks to compare', async (t) => {
  t.ok(cases >= 10, `${cases} case runs compared`);
});
