import t, { type Test } from 'tap';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { createCommandRunner, type CommandRunner } from '@brine/core';
import { createRegistry, localeModule } from '../src/index.js';
import { canUnshare, goldenCases, runGoldenCase } from './golden-cases.js';

/**
 * locale.present and locale.system against Salt's results. Salt ran in a mount namespace with the
 * case's /etc files over the system's and a private upper layer on /usr/lib/locale, so locale-gen
 * and update-locale ran for real. Brine edits the case's files by path and runs its commands
 * (locale -a, locale-gen, update-locale) in a mount namespace that binds those same files over
 * /etc and overlays /usr/lib/locale: the host's locales are untouched. After the real run, the
 * files and the built locales must be as Salt left them (salt-after.txt).
 */

const unshareOk = canUnshare();

/** A runner whose commands see ROOT's locale files at /etc and a private /usr/lib/locale. */
function namespaceRunner(t: Test, root: string): CommandRunner {
  const real = createCommandRunner();
  let holder: Promise<ChildProcess> | undefined;
  const start = async () => {
    const mounts = [
      `mount --bind '${root}/etc/locale.gen' /etc/locale.gen`,
      `mount --bind '${root}/etc/default' /etc/default`,
      `mount -t overlay overlay -o 'lowerdir=/usr/lib/locale,upperdir=${root}/lu,workdir=${root}/lw' /usr/lib/locale`,
    ].join(' && ');
    const p = spawn('unshare', ['-m', 'sh', '-c', `${mounts} && echo ready && exec sleep 3600`], { stdio: ['ignore', 'pipe', 'inherit'] });
    t.teardown(() => {
      p.kill('SIGKILL');
    });
    const [first] = (await once(p.stdout!, 'data')) as [Buffer];
    if (first.toString().trim() !== 'ready') throw new Error(`namespace holder: ${first.toString()}`);
    return p;
  };
  return {
    run: async (cmd, opts) => {
      holder ??= start();
      const pid = (await holder).pid!;
      return real.run(Array.isArray(cmd) ? ['nsenter', '-t', String(pid), '-m', '--', ...cmd] : cmd, opts);
    },
  };
}

for (const caseDir of goldenCases('locale')) {
  for (const mode of ['run', 'test'] as const) {
    t.test(`locale/${basename(caseDir)} ${mode}`, { skip: unshareOk ? false : 'needs root with unshare/nsenter' }, async (t) => {
      const registry = (root: string) => createRegistry([localeModule({ etc: join(root, 'etc'), systemd: false })]);
      const after = (root: string) => {
        if (mode !== 'run') return;
        const text = [
          readFileSync(join(root, 'etc/locale.gen'), 'utf8'),
          '--\n',
          readFileSync(join(root, 'etc/default/locale'), 'utf8'),
          '--\n',
          readdirSync(join(root, 'lu')).sort().join('\n') + '\n',
        ].join('');
        t.equal(text, readFileSync(join(caseDir, 'salt-after.txt'), 'utf8'), 'locale.gen, default/locale and the built locales as Salt left them');
      };
      for (const r of await runGoldenCase(caseDir, mode, { registry, cmd: (root) => namespaceRunner(t, root), after })) t.same(r.got, r.want, r.tag);
    });
  }
}
