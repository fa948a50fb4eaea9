import t from 'tap';
import { callExec, execContext, execRegistry, runExec } from '../src/index.js';

const registry = execRegistry();
// a command-line call (Salt's __pub_jid set): cmd.* go through the shell by default
const ctx = execContext({ registry, grains: { shell: '/bin/bash' }, direct: true });
const call = (f: string, a: unknown[] = [], k: Record<string, unknown> = {}) => callExec(registry, f, a, k, ctx);

t.test('cmd.run runs through the shell grain, stderr merged, retcode of the job', async (t) => {
  t.equal(await call('cmd.run', ['echo hi']), 'hi');
  t.equal(
    await call('cmd.run', ['echo $BASH_VERSION | cut -c1']),
    (await call('cmd.run', ['bash -c "echo \\$BASH_VERSION" | cut -c1'])) as string,
    'bash, as the shell grain says',
  );
  t.equal(await call('cmd.run', ['echo out; echo err >&2']), 'out\nerr');
  t.same(await runExec(registry, 'cmd.run', ['exit 3'], {}, ctx), { return: '', retcode: 3 });
  t.same(await runExec(registry, 'cmd.run', ['exit 3'], { ignore_retcode: true }, ctx), { return: '', retcode: 0 });
  t.equal(await call('cmd.run', ['echo a | tr a b'], { python_shell: false }), 'a | tr a b', 'python_shell=False splits words, no pipe');
  const fromCode = execContext({ registry, grains: { shell: '/bin/bash' } });
  t.equal(await callExec(registry, 'cmd.run', ['echo a | tr a b'], {}, fromCode), 'a | tr a b', 'a call from code has no shell unless asked, as Salt');
  t.equal(await callExec(registry, 'cmd.run', ['echo a | tr a b'], { python_shell: true }, fromCode), 'b');
  t.equal(await callExec(registry, 'cmd.run', ["printf '%s|' 'a b' c"], {}, fromCode), 'a b|c|', 'words split as shlex does');
  t.equal(await call('cmd.run', ['pwd'], { cwd: '/tmp' }), '/tmp');
  t.equal(await call('cmd.run', ['echo $X'], { env: { X: 'y' } }), 'y');
});

t.test('run_all, run_stdout, run_stderr, retcode, shell', async (t) => {
  const all = (await call('cmd.run_all', ['echo o; echo e >&2; exit 2'])) as Record<string, unknown>;
  t.match(all, { retcode: 2, stdout: 'o', stderr: 'e' });
  t.type(all.pid, 'number');
  t.equal(await call('cmd.run_stdout', ['echo o; echo e >&2']), 'o');
  t.equal(await call('cmd.run_stderr', ['echo o; echo e >&2']), 'e');
  t.equal(await call('cmd.retcode', ['exit 5']), 5);
  t.equal(await call('cmd.retcode', ['exit 5'], { success_retcodes: [5] }), 0);
  t.equal(await call('cmd.shell', ['echo a | tr a b']), 'b');
});

t.test('which and has_exec look at PATH', async (t) => {
  t.match(await call('cmd.which', ['sh']), /\/sh$/);
  t.equal(await call('cmd.which', ['no-such-command-brine']), null);
  t.equal(await call('cmd.has_exec', ['sh']), true);
  t.equal(await call('cmd.has_exec', ['no-such-command-brine']), false);
  t.match(await call('cmd.which_bin', [['no-such-brine', 'sh']]), /\/sh$/);
});
