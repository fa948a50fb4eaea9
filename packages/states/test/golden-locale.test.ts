import t from 'tap';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { createRegistry, localeModule } from '../src/index.js';
import { canUnshare, goldenCases, runGoldenCase } from './golden-cases.js';
import { namespaceRunner } from './ns-runner.js';

/**
 * locale.present and locale.system against Salt's results. Salt ran in a mount namespace with the
 * case's /etc files over the system's and a private upper layer on /usr/lib/locale, so locale-gen
 * and update-locale ran for real. Brine edits the case's files by path and runs its commands
 * (locale -a, locale-gen, update-locale) in a mount namespace that binds those same files over
 * /etc and overlays /usr/lib/locale: the host's locales are untouched. After the real run, the
 * files, the built locales and file.replace's .bak copies must be as Salt left them (salt-after.txt).
 */

const unshareOk = canUnshare();

for (const caseDir of goldenCases('locale')) {
  for (const mode of ['run', 'test'] as const) {
    t.test(`locale/${basename(caseDir)} ${mode}`, { skip: unshareOk || process.getuid?.() === 0 ? false : 'needs root with unshare/nsenter' }, async (t) => {
      const registry = (root: string) => createRegistry([localeModule({ etc: join(root, 'etc'), systemd: false })]);
      const after = (root: string) => {
        if (mode !== 'run') return;
        const text = [
          readFileSync(join(root, 'etc/locale.gen'), 'utf8'),
          '--\n',
          readFileSync(join(root, 'etc/default/locale'), 'utf8'),
          '--\n',
          readdirSync(join(root, 'lu')).sort().join('\n') + '\n',
          '--\n',
          ['./default/locale.bak', './locale.gen.bak'].filter((f) => existsSync(join(root, 'etc', f))).join('\n') + '\n',
          readFileSync(join(root, 'etc/locale.gen.bak'), 'utf8'),
          readFileSync(join(root, 'etc/default/locale.bak'), 'utf8'),
        ].join('');
        t.equal(text, readFileSync(join(caseDir, 'salt-after.txt'), 'utf8'), 'locale.gen, default/locale and the built locales as Salt left them');
      };
      for (const r of await runGoldenCase(caseDir, mode, {
        registry,
        cmd: (root) =>
          namespaceRunner(
            t,
            ['-m'],
            [
              `mount --bind '${root}/etc/locale.gen' /etc/locale.gen`,
              `mount --bind '${root}/etc/default' /etc/default`,
              `mount -t overlay overlay -o 'lowerdir=/usr/lib/locale,upperdir=${root}/lu,workdir=${root}/lw' /usr/lib/locale`,
            ].join(' && '),
          ),
        after,
        scratch: ['/lw'],
      }))
        t.same(r.got, r.want, r.tag);
    });
  }
}
