import t from 'tap';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** A grain probe runs its program once per binary; the cache answers until the binary changes. */
const tmp = mkdtempSync(path.join(os.tmpdir(), 'brine-probe-'));
process.env.XDG_CACHE_HOME = path.join(tmp, 'cache');
delete process.env.BRINE_PROBE_CACHE;
const { probeOutput } = await import('../src/index.js');
t.teardown(() => rmSync(tmp, { recursive: true, force: true }));

const runs = path.join(tmp, 'runs');
const program = path.join(tmp, 'probe');
const write = (version: string) => {
  writeFileSync(program, `#!/bin/sh\necho x >> ${runs}\necho "probe ${version}"\n`);
  chmodSync(program, 0o755);
};
const count = () => readFileSync(runs, 'utf8').split('\n').filter(Boolean).length;

t.test('the second ask reads the cache; a changed binary is asked again', async (t) => {
  write('1.0');
  t.equal(probeOutput(program, ['--version']), 'probe 1.0\n');
  t.equal(probeOutput(program, ['--version']), 'probe 1.0\n');
  t.equal(count(), 1, 'the program ran once');
  t.equal(probeOutput(program, ['--other']), 'probe 1.0\n');
  t.equal(count(), 2, 'other arguments are another entry');
  write('2.0.1');
  t.equal(probeOutput(program, ['--version']), 'probe 2.0.1\n', 'an upgraded program is asked again');
  t.equal(count(), 3);
});

t.test('a program that fails is not cached', async (t) => {
  t.equal(probeOutput(path.join(tmp, 'missing'), ['--version']), undefined);
});
