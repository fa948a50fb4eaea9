import t from 'tap';
import { execFileSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { createRegistry, sshKnownHostsModule } from '../src/index.js';
import { goldenCases, runGoldenCase } from './golden-cases.js';

/**
 * ssh_known_hosts.present/absent against Salt's results: the same known_hosts file in the case's
 * root, the real ssh-keygen (and ssh-keyscan for a host that does not resolve). After the real
 * run, every host reads back through `ssh-keygen -F` as after Salt's run (hashed entries
 * included), and the file keeps its mode (salt-after.txt).
 */

function afterText(file: string): string {
  const lines = ['alpha', 'beta', 'gamma', 'delta'].map((h) => {
    let found = '';
    try {
      found = execFileSync('ssh-keygen', ['-F', h, '-f', file], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    } catch {
      found = '';
    }
    const keys = found
      .split('\n')
      .filter((l) => l && !l.startsWith('#'))
      .map((l) => l.split(/\s+/).slice(1, 3).join(' ') + ' ');
    return `${h}: ${keys.join('')}`;
  });
  return [...lines, (statSync(file).mode & 0o777).toString(8)].join('\n') + '\n';
}

for (const caseDir of goldenCases('ssh_known_hosts')) {
  for (const mode of ['run', 'test'] as const) {
    t.test(`ssh_known_hosts/${basename(caseDir)} ${mode}`, async (t) => {
      const registry = () => createRegistry([sshKnownHostsModule()]);
      const after = (root: string) => {
        if (mode === 'run') t.equal(afterText(join(root, 'known_hosts')), readFileSync(join(caseDir, 'salt-after.txt'), 'utf8'), 'known_hosts as Salt left it');
      };
      for (const r of await runGoldenCase(caseDir, mode, { registry, after })) t.same(r.got, r.want, r.tag);
    });
  }
}
