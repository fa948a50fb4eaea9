import t, { type Test } from 'tap';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { basename, join } from 'node:path';
import { createCommandRunner, type CommandRunner } from '@brine/core';
import { alternativesModule, createRegistry, cmdModule, sysctlModule } from '../src/index.js';
import { canUnshare, goldenCases, runGoldenCase } from './golden-cases.js';

/**
 * sysctl.present and the alternatives states against Salt's results. Salt ran sysctl in fresh
 * UTS and network namespaces (kernel.domainname and net.* are per namespace); Brine runs every
 * command of the case inside such a namespace too (nsenter into a holder process), so the real
 * sysctl reads and writes, and the host is untouched. update-alternatives runs for real with
 * --altdir/--admindir in the case's root (Salt ran with those dirs bind-mounted over the system's).
 */

const unshareOk = canUnshare();

/** A runner whose commands run in fresh UTS and network namespaces, kept by a holder process. */
async function namespaceRunner(t: Test): Promise<CommandRunner> {
  const holder = spawn('unshare', ['-un', 'sh', '-c', 'echo ready; exec sleep 3600'], { stdio: ['ignore', 'pipe', 'inherit'] });
  t.teardown(() => {
    holder.kill('SIGKILL');
  });
  const [first] = (await once(holder.stdout!, 'data')) as [Buffer];
  t.equal(first.toString().trim(), 'ready', 'namespace holder started');
  const real = createCommandRunner();
  return { run: (cmd, opts) => real.run(Array.isArray(cmd) ? ['nsenter', '-t', String(holder.pid), '-u', '-n', '--', ...cmd] : cmd, opts) };
}

for (const caseDir of goldenCases('sysctl')) {
  for (const mode of ['run', 'test'] as const) {
    t.test(`sysctl/${basename(caseDir)} ${mode}`, { skip: unshareOk || process.getuid?.() === 0 ? false : 'needs root with unshare/nsenter' }, async (t) => {
      const cmd = await namespaceRunner(t);
      const registry = createRegistry([sysctlModule(), cmdModule()]);
      for (const r of await runGoldenCase(caseDir, mode, { registry: () => registry, cmd: () => cmd })) t.same(r.got, r.want, r.tag);
    });
  }
}

for (const caseDir of goldenCases('alternatives')) {
  for (const mode of ['run', 'test'] as const) {
    t.test(`alternatives/${basename(caseDir)} ${mode}`, async (t) => {
      const registry = (root: string) => createRegistry([alternativesModule({ altdir: join(root, 'alternatives'), admindir: join(root, 'admin') })]);
      for (const r of await runGoldenCase(caseDir, mode, { registry })) t.same(r.got, r.want, r.tag);
    });
  }
}
