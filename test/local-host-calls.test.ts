import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import t from 'tap';
import { brine, REPO } from './support/brine-cli.js';

/**
 * Under `brine local` the host is the minion: `salt['cmd.has_exec']` and `salt['cmd.run']` in
 * templates are answered on this host, and the low state is the one Salt printed for the same
 * tree (test/fixtures/host-calls, recorded with the Salt oracle).
 */
t.test('host calls answered on this host give Salt’s low state', async (t) => {
  const dir = join(REPO, 'test/fixtures/host-calls');
  const salt = JSON.parse(readFileSync(join(dir, 'salt-low.json'), 'utf8')) as unknown[];
  const run = await brine(['local', 'state.show_lowstate', '--file-root', join(dir, 'tree'), '--id', 'anchor', '--out', 'json']);
  t.equal(run.code, 0, run.stderr);
  t.equal(JSON.stringify((JSON.parse(run.stdout) as { local: unknown }).local), JSON.stringify(salt));
});
