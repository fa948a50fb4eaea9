import type { Test } from 'tap';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createCommandRunner, type CommandRunner } from '@brine/core';

/**
 * A command runner whose commands run inside fresh namespaces (`unshare` flags such as -m, -u,
 * -n), set up once by a shell snippet (bind mounts, overlays) and kept by a holder process:
 * modules run their real commands (locale-gen, debconf-set-selections, sysctl -w) without
 * touching the host. The holder starts with the first command and dies with the test.
 */
export function namespaceRunner(t: Test, flags: string[], setup = 'true'): CommandRunner {
  const real = createCommandRunner();
  let holder: Promise<ChildProcess> | undefined;
  const start = async () => {
    const p = spawn('unshare', [...flags, 'sh', '-c', `${setup} && echo ready && exec sleep 3600`], { stdio: ['ignore', 'pipe', 'inherit'] });
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
      const argv = Array.isArray(cmd) ? cmd : ['sh', '-c', cmd];
      return real.run(['nsenter', '-t', String(pid), ...flags, '--', ...argv], opts);
    },
  };
}
