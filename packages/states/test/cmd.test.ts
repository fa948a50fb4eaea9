import t from 'tap';
import { mkdtemp, rm, writeFile, mkdir, realpath } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { callModWatch, callState, defaultRegistry, dirFileClient } from '../src/index.js';
import { chunk, ctxFor } from './helpers.js';

const reg = defaultRegistry();
const call = (fun: string, name: string, extra: Record<string, unknown> = {}, opts: Parameters<typeof ctxFor>[1] = {}) => {
  const c = chunk('cmd', fun, name, extra);
  return callState(reg, c, ctxFor(c, opts));
};

t.test('cmd.run runs a real command; exit code decides the result', async (t) => {
  const ok = await call('run', 'echo hello');
  t.equal(ok.result, true);
  t.equal(ok.comment, 'Command "echo hello" run');
  t.match(ok.changes, { retcode: 0, stdout: 'hello', stderr: '' });
  t.ok((ok.changes as { pid: number }).pid > 0);
  t.same(ok.new_state, { retcode: 0, stdout: 'hello', stderr: '' });
  const bad = await call('run', 'echo err >&2; exit 3');
  t.equal(bad.result, false);
  t.match(bad.changes, { retcode: 3, stderr: 'err' });
  const allowed = await call('run', 'exit 3', { success_retcodes: [3] });
  t.equal(allowed.result, true);
  t.equal((allowed.changes as { retcode: number }).retcode, 0);
  const hidden = await call('run', 'echo secret', { hide_output: true });
  t.match(hidden.changes, { stdout: '', stderr: '' });
});

t.test('cmd.run cwd, env (list of dicts or dict), shell, stdin, runas', async (t) => {
  const dir = await realpath(await mkdtemp(join(tmpdir(), 'brine-cmd-')));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const r = await call('run', 'pwd; echo "$A-$B"', { cwd: dir, env: [{ A: 'one' }, { B: true }] });
  t.equal((r.changes as { stdout: string }).stdout, `${dir}\none-True`);
  const d = await call('run', 'echo $A', { env: { A: 'dict' } });
  t.equal((d.changes as { stdout: string }).stdout, 'dict');
  const badEnv = await call('run', 'true', { env: 'A=1' });
  t.equal(badEnv.result, false);
  t.equal(badEnv.comment, "Invalidly-formatted 'env' parameter. See documentation.");
  const noCwd = await call('run', 'true', { cwd: join(dir, 'missing') });
  t.equal(noCwd.result, false);
  t.equal(noCwd.comment, `Desired working directory "${join(dir, 'missing')}" is not available`);
  const sh = await call('run', 'echo $0', { shell: '/bin/bash' });
  t.equal((sh.changes as { stdout: string }).stdout, '/bin/bash');
  const stdin = await call('run', 'cat', { stdin: 'piped' });
  t.equal((stdin.changes as { stdout: string }).stdout, 'piped');
  if (process.getuid?.() === 0) {
    const as = await call('run', 'id -un', { runas: 'nobody' });
    t.equal((as.changes as { stdout: string }).stdout, 'nobody');
  }
});

t.test('cmd.run in test mode runs nothing', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'brine-cmd-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const marker = join(dir, 'ran');
  const r = await call('run', `touch ${marker}`, {}, { test: true });
  t.same(r, {
    name: `touch ${marker}`,
    result: null,
    changes: { cmd: `touch ${marker}` },
    comment: `Command "touch ${marker}" would have been executed`,
    old_state: null,
  });
  const { existsSync } = await import('node:fs');
  t.notOk(existsSync(marker));
  // stateful with a test_name runs the test command instead
  const s = await call('run', 'exit 9', { stateful: [{ test_name: 'echo changed=yes comment=would' }] }, { test: true });
  t.equal(s.result, null);
  t.equal(s.comment, 'would');
});

t.test('cmd.run stateful protocol', async (t) => {
  const kv = await call('run', `echo working; echo "changed=yes comment='did it' extra=1"`, { stateful: true });
  t.equal(kv.result, true);
  t.equal(kv.comment, 'did it');
  t.match(kv.changes, { changed: 'yes', extra: '1', retcode: 0, stdout: 'working' });
  const json = await call('run', `echo '{"changed": false, "comment": "nothing to do"}'`, { stateful: true });
  t.equal(json.comment, 'nothing to do');
  t.same(json.changes, {});
  const quiet = await call('run', 'true', { stateful: true });
  t.same(quiet.changes, {});
  t.equal(quiet.comment, '');
});

t.test('cmd.wait acts only through mod_watch', async (t) => {
  const w = await call('wait', 'echo waited');
  t.same({ result: w.result, changes: w.changes, comment: w.comment }, { result: true, changes: {}, comment: '' });
  const c = chunk('cmd', 'wait', 'echo waited');
  const m = await callModWatch(reg, c, ctxFor(c));
  t.equal(m.result, true);
  t.equal(m.comment, 'Command "echo waited" run');
  t.match(m.changes, { stdout: 'waited' });
  const tm = await callModWatch(reg, c, ctxFor(c, { test: true }));
  t.equal(tm.result, null);
});

t.test('cmd.script fetches salt://, renders jinja, passes args', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'brine-script-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  await mkdir(join(dir, 'scripts'));
  await writeFile(join(dir, 'scripts/hello.sh'), '#!/bin/sh\necho "hello {{ who }} $1 $2"\n');
  const files = dirFileClient({ base: [dir] });
  const r = await call('script', 'salt://scripts/hello.sh a b', { template: 'jinja', context: { who: 'world' } }, { files });
  t.equal(r.result, true, r.comment);
  t.equal(r.comment, "Command 'salt://scripts/hello.sh a b' run");
  t.equal((r.changes as { stdout: string }).stdout, 'hello world a b');
  const s = await call('script', 'run-it', { source: 'salt://scripts/hello.sh', args: 'x y', template: 'jinja' }, { files, templateContext: { who: 'ctx' } });
  t.equal((s.changes as { stdout: string }).stdout, 'hello ctx x y');
  const missing = await call('script', 'salt://scripts/none.sh', {}, { files });
  t.equal(missing.result, false);
  t.equal(missing.comment, "Unable to cache script salt://scripts/none.sh from saltenv 'base'");
  const test = await call('script', 'salt://scripts/hello.sh', {}, { files, test: true });
  t.equal(test.result, null);
  t.equal(test.comment, "Command 'salt://scripts/hello.sh' would have been executed");
});
