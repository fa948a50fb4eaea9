import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import t from 'tap';
import { BIN } from './helpers/proc.js';

/**
 * A command line that runs without the test runner's NODE_OPTIONS: under Node 22 they carry flags
 * (type stripping) that an older Node refuses before it reads a line, and tap's process tracking
 * puts them back into any environment a test passes to spawn; `env -u` drops them at exec.
 */
function plainNode(node: string, args: string[]): [string, string[]] {
  return ['env', ['-u', 'NODE_OPTIONS', node, ...args]];
}

function run(node: string, args: string[], closeStdout: boolean): Promise<{ code: number | null; signal: string | null; stderr: string }> {
  return new Promise((resolve) => {
    const [cmd, argv] = plainNode(node, [BIN, ...args]);
    const child = spawn(cmd, argv, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, BRINE_MINION_CONFIG: '' } });
    // the reader goes away before the command writes: `brine ... | head` once head has its lines
    if (closeStdout) child.stdout.destroy();
    else child.stdout.resume();
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.on('close', (code, signal) => resolve({ code, signal, stderr }));
  });
}

t.test('a closed stdout pipe ends the command quietly', async (t) => {
  const r = await run(process.execPath, ['--help'], true);
  t.equal(r.stderr, '', 'no EPIPE stack trace');
  t.equal(r.code, 0);
});

const OLD_NODE = ['/usr/bin/node', '/usr/local/bin/node'].find((n) => existsSync(n));
t.test('an older Node is refused before anything native loads', { skip: OLD_NODE ? false : 'no second Node on this host' }, async (t) => {
  const version = await new Promise<string>((resolve) => {
    const c = spawn(...plainNode(OLD_NODE!, ['-p', 'process.versions.node']));
    let out = '';
    c.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    c.on('close', () => resolve(out.trim()));
  });
  if (Number(version.split('.')[0]) >= 22) return t.skip(`${OLD_NODE} is Node ${version}`);
  for (const args of [['--version'], ['master', '--config', '/nonexistent.yaml']]) {
    const r = await run(OLD_NODE!, args, false);
    t.equal(r.code, 1, `brine ${args.join(' ')}`);
    t.equal(r.signal, null, 'no segmentation fault');
    t.match(r.stderr, `Node ${version}`);
    t.match(r.stderr, /needs Node 22 or later/);
  }
});
