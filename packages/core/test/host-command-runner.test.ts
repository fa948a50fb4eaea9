import t from 'tap';
import { mkdtemp, rm, realpath } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCommandRunner, shellQuote } from '../src/index.js';

const runner = createCommandRunner();

t.test('a string runs through /bin/sh; output trimmed like Salt', async (t) => {
  const r = await runner.run('echo hello; echo oops >&2; exit 3');
  t.equal(r.retcode, 3);
  t.equal(r.stdout, 'hello');
  t.equal(r.stderr, 'oops');
  t.ok(r.pid > 0);
});

t.test('an array runs without a shell', async (t) => {
  const r = await runner.run(['printf', '%s|', 'a b', '$HOME']);
  t.equal(r.retcode, 0);
  t.equal(r.stdout, 'a b|$HOME|');
});

t.test('a missing program answers 127, it does not throw', async (t) => {
  const r = await runner.run(['/no/such/program-brine']);
  t.equal(r.retcode, 127);
  t.match(r.stderr, /command not found/);
});

t.test('cwd, env merged over the environment, stdin, shell', async (t) => {
  const dir = await realpath(await mkdtemp(join(tmpdir(), 'brine-runner-')));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const r = await runner.run('pwd; echo "$BRINE_X"; echo "${PATH:+has-path}"; cat', {
    cwd: dir,
    env: { BRINE_X: 'x-value' },
    stdin: 'from stdin\n',
  });
  t.equal(r.stdout, `${dir}\nx-value\nhas-path\nfrom stdin`);
  const b = await runner.run('echo $0', { shell: '/bin/bash' });
  t.equal(b.stdout, '/bin/bash');
  const missing = await runner.run('true', { cwd: join(dir, 'nope') });
  t.equal(missing.retcode, 127);
  t.match(missing.stderr, /does not exist/);
});

t.test('timeout kills the whole process group', async (t) => {
  const r = await runner.run('sleep 30; echo never', { timeoutMs: 200 });
  t.equal(r.retcode, 1);
  t.match(r.stdout, /^Timed out after 0.2 seconds/);
});

t.test('runas as root switches user', { skip: process.getuid?.() !== 0 ? 'needs root' : false }, async (t) => {
  const r = await runner.run('id -un', { runas: 'nobody' });
  t.equal(r.retcode, 0);
  t.equal(r.stdout, 'nobody');
  const arr = await runner.run(['id', '-un'], { runas: 'nobody' });
  t.equal(arr.stdout, 'nobody');
  const bad = await runner.run('true', { runas: 'no-such-user-brine' });
  t.not(bad.retcode, 0);
});

t.test('shellQuote', async (t) => {
  t.equal(shellQuote('abc/def'), 'abc/def');
  t.equal(shellQuote("it's"), `'it'\\''s'`);
  t.equal(shellQuote(''), "''");
});
