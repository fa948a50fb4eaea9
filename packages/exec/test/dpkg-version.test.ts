import { execFileSync } from 'node:child_process';
import { createCommandRunner, type CommandRunner } from '@brine/core';
import t from 'tap';
import { dpkgVersionCompare } from '../src/host/dpkg-version.js';
import { callExec, execContext, execRegistry } from '../src/index.js';

/** What dpkg itself answers: -1, 0, 1, or null when it refuses. */
function dpkg(a: string, b: string): number | null {
  for (const [op, val] of [
    ['lt', -1],
    ['eq', 0],
    ['gt', 1],
  ] as const) {
    try {
      execFileSync('dpkg', ['--compare-versions', a, op, b], { stdio: 'ignore' });
      return val;
    } catch (e) {
      if ((e as { status?: number }).status !== 1) return null;
    }
  }
  return null;
}

const hasDpkg = (() => {
  try {
    execFileSync('dpkg', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

t.test('dpkgVersionCompare orders as dpkg --compare-versions (or leaves it to dpkg)', { skip: !hasDpkg && 'no dpkg here' }, async (t) => {
  const fixed = [
    '248+deb12u1',
    '246',
    '1.0',
    '1.0-0',
    '1.0-1',
    '1.0~rc1',
    '1.0~rc1-1',
    '1.0+b1',
    '1:0.9',
    '0:1.0',
    '2:1.0',
    '1.0a',
    '1.0.a',
    '1.00',
    '1.0-1~bpo1',
    '1.0-1+deb1',
    '10',
    '9',
    '1.2-3-4',
    '1.2-3',
    '007',
    '7',
    '1~~',
    '1~~a',
    '1~',
    '1',
  ];
  const odd = ['', ' 1.0', '1.0 ', 'a1.0', '1.0-', ':1.0', '1:', 'x:1.0', '1.0_1', '1.0:1', '1-2:3', '<unknown>', '99999999999:1'];
  let seed = 3;
  const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2147483648), Math.floor(seed / 65536) % n);
  const alphabet = ['0', '1', '9', '.', '+', '~', 'a', 'Z', '-', ':'];
  const random = () => `${rnd(3)}${Array.from({ length: rnd(6) }, () => alphabet[rnd(alphabet.length)]).join('')}`;
  const pairs: [string, string][] = [];
  for (const a of fixed) for (const b of fixed) if (rnd(4) === 0) pairs.push([a, b]);
  for (const a of odd) pairs.push([a, '1.0'], ['1.0', a]);
  for (let i = 0; i < 120; i++) pairs.push([random(), random()]);
  let local = 0;
  for (const [a, b] of pairs) {
    const mine = dpkgVersionCompare(a, b);
    if (mine === undefined) continue;
    local++;
    t.equal(mine, dpkg(a, b), `${a} vs ${b}`);
  }
  for (const a of odd) t.equal(dpkgVersionCompare(a, '1.0'), undefined, `${JSON.stringify(a)} is left to dpkg`);
  t.ok(local > 150, `${local} of ${pairs.length} compared here`);
});

t.test('pkg.version_cmp starts no dpkg for plain versions', async (t) => {
  const real = createCommandRunner();
  const ran: string[] = [];
  const cmd: CommandRunner = { run: (c, o) => (ran.push(([] as string[]).concat(c).join(' ')), real.run(c, o)) };
  const registry = execRegistry();
  const ctx = execContext({ registry, grains: {}, direct: true, cmd });
  t.equal(await callExec(registry, 'pkg.version_cmp', ['248+deb12u1', '246'], {}, ctx), 1);
  t.equal(await callExec(registry, 'pkg.version_cmp', ['2:1.0', '1:9.0'], { ignore_epoch: true }, ctx), -1);
  t.same(ran, []);
  if (hasDpkg) t.equal(await callExec(registry, 'pkg.version_cmp', ['1.0_1', '1.0'], {}, ctx), dpkg('1.0_1', '1.0'), 'an odd version: dpkg answers');
});
