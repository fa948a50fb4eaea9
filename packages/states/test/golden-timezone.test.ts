import t from 'tap';
import { existsSync, readFileSync, readlinkSync } from 'node:fs';
import { basename, join } from 'node:path';
import { createRegistry, timezoneModule } from '../src/index.js';
import { goldenCases, runGoldenCase } from './golden-cases.js';

/**
 * timezone.system against Salt's results. Salt ran with the case's /etc files laid over the
 * system's (an overlay in a mount namespace) and timedatectl hidden, so it took its Debian file
 * path; Brine works on the same files in the case's root, and after the real run /etc must read
 * as Salt left it (salt-after.txt: the zone, the localtime link, rcS).
 */

function etcAfter(etc: string, setupRcS: string): string {
  const tz = readFileSync(join(etc, 'timezone'), 'utf8');
  const link = readlinkSync(join(etc, 'localtime'));
  const rcS = readFileSync(join(etc, 'default/rcS'), 'utf8');
  return [
    tz === 'Etc/UTC\n' ? 'timezone unchanged\n' : tz,
    link === '/usr/share/zoneinfo/Etc/UTC' ? 'localtime unchanged\n' : `${link}\n`,
    rcS === setupRcS ? 'rcS unchanged\n' : rcS,
  ].join('');
}

for (const caseDir of goldenCases('timezone')) {
  for (const mode of ['run', 'test'] as const) {
    t.test(`timezone/${basename(caseDir)} ${mode}`, async (t) => {
      let rcS = '';
      const registry = (root: string) => {
        rcS = existsSync(join(root, 'etc/default/rcS')) ? readFileSync(join(root, 'etc/default/rcS'), 'utf8') : '';
        return createRegistry([timezoneModule({ etc: join(root, 'etc'), timedatectl: false })]);
      };
      const after = (root: string) => {
        if (mode === 'run') t.equal(etcAfter(join(root, 'etc'), rcS), readFileSync(join(caseDir, 'salt-after.txt'), 'utf8'), '/etc as Salt left it');
      };
      for (const r of await runGoldenCase(caseDir, mode, { registry, after })) t.same(r.got, r.want, r.tag);
    });
  }
}
