import { readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { Cluster } from './helpers/cluster.js';
import { REPO } from './support/brine-cli.js';

/**
 * Remote execution through a real master and real minions runs the functions of @brine/exec:
 * `brine run '*' file.file_exists path=/etc/hosts --out json` prints Salt's `{minion: return}`
 * per minion, and a state run on a minion calls the same functions for `fun:` conditions and
 * module.run (with Salt 3007.10's results, test/fixtures/exec-conditions).
 */

const CASE = path.join(REPO, 'test/fixtures/exec-conditions');
const cluster = new Cluster({ minions: ['m1', 'm2'], master: { file_roots: { base: [path.join(CASE, 'tree')] } } });
t.before(async () => {
  await cluster.start();
});
t.teardown(() => cluster.close());

const lines = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

t.test("brine run '*' file.file_exists path=/etc/hosts", async (t) => {
  const r = await cluster.brine(['run', '*', 'file.file_exists', 'path=/etc/hosts', '--out', 'json']);
  t.equal(r.code, 0, r.stderr);
  t.same(lines(r.stdout), [{ m1: true }, { m2: true }]);
  const missing = await cluster.brine(['run', 'm1', 'file.file_exists', '/nonexistent/brine', '--out', 'json']);
  t.same(lines(missing.stdout), [{ m1: false }]);
  const shell = await cluster.brine(['run', 'm1', 'cmd.run', 'echo a | tr a b', '--out', 'json']);
  t.same(lines(shell.stdout), [{ m1: 'b' }], 'a job calls cmd.run through the shell');
  const user = await cluster.run('m2', 'user.info', ['root']);
  t.match(user.returns.m2!.return, { uid: 0, name: 'root', home: '/root' });
  const fns = await cluster.run('m1', 'sys.list_functions', ['file']);
  t.ok((fns.returns.m1!.return as string[]).includes('file.file_exists'));
});

t.test("salt's -v, --show-jid and --static", async (t) => {
  const whole = await cluster.brine(['run', '*', 'test.ping', '--static', '--out', 'json']);
  t.equal(whole.code, 0, whole.stderr);
  t.same(JSON.parse(whole.stdout), { m1: true, m2: true }, 'one document of every return');
  t.equal(whole.stdout.split('\n').length, 5, "indented as Salt's json outputter");
  const jid = await cluster.brine(['run', 'm1', 'test.ping', '--show-jid']);
  t.match(jid.stdout, /^jid: \d{20}\nm1:\n {4}True\n$/);
  const verbose = await cluster.brine(['run', 'm1', 'test.ping', '-v']);
  t.match(verbose.stdout, /^Executing job with jid \d{20}\n-{43}\n\nm1:\n {4}True\n$/);
  const json = await cluster.brine(['run', 'm1', 'test.ping', '-v', '--out', 'json']);
  t.same(lines(json.stdout), [{ m1: true }], 'the jid line goes to stderr when stdout is a document');
  t.match(json.stderr, /^Executing job with jid \d{20}\n/);
});

t.test('a state run on a minion checks fun: conditions and runs module.run as Salt', async (t) => {
  const want = JSON.parse(readFileSync(path.join(CASE, 'salt-run.json'), 'utf8')) as Record<string, Record<string, unknown>>;
  const r = await cluster.run('m1', 'state.apply', ['init']);
  const got = r.returns.m1!.return as Record<string, Record<string, unknown>>;
  t.same(Object.keys(got).sort(), Object.keys(want).sort());
  for (const [tag, w] of Object.entries(want)) {
    t.same(
      { result: got[tag]!.result, comment: got[tag]!.comment, changes: got[tag]!.changes },
      { result: w.result, comment: w.comment, changes: w.changes },
      tag,
    );
  }
});
