import t from 'tap';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { callModWatch, createRegistry, mountModule } from '../src/index.js';
import { canUnshare } from './golden-cases.js';
import { chunk, ctxFor } from './helpers.js';
import { namespaceRunner } from './ns-runner.js';

/**
 * test=True never changes the host, mod_watch included: the runtime calls a module's mod_watch
 * in test mode when a watched state would change (as Salt does), so each mod_watch must only say
 * what it would do. Salt's own mount.mod_watch remounts even under test=True; Brine does not.
 */

t.test('mount mod_watch under test=True does not remount', { skip: canUnshare() ? false : 'needs root with unshare/nsenter' }, async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'brine-mnt-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const cmd = namespaceRunner(t, ['-m'], `mount --make-rprivate / && mount -t tmpfs -o rw,size=1m brine-test '${dir}'`);
  const options = async () => (await cmd.run(['findmnt', '-no', 'OPTIONS', dir])).stdout;
  t.match(await options(), /^rw,/);
  const registry = createRegistry([mountModule({ cacheFile: join(dir, 'cache.json') })]);
  const c = chunk('mount', 'mounted', dir, { device: 'brine-test', fstype: 'tmpfs', opts: 'ro,size=1m' });
  const dry = await callModWatch(registry, c, ctxFor(c, { test: true, cmd }));
  t.same([dry.result, dry.comment, dry.changes], [null, `${dir} would be remounted`, {}]);
  t.match(await options(), /^rw,/, 'still mounted read-write: nothing was remounted');
  const real = await callModWatch(registry, c, ctxFor(c, { cmd }));
  t.same([real.result, real.comment], [true, `${dir} remounted`]);
  t.match(await options(), /^ro,/, 'the real run remounts');
});
