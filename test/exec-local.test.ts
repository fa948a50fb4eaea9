import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { brine, REPO } from './support/brine-cli.js';

/**
 * `brine local <mod.fun>` runs execution functions as salt-call --local does: `--out json`
 * prints `{"local": <return>}`, the default is the nested outputter; and unless/onlyif `fun:`
 * entries and module.run in a state run call the same functions, with Salt's results
 * (test/fixtures/exec-conditions holds Salt 3007.10's answers).
 */

const json = async (args: string[]) => {
  const r = await brine(['local', ...args, '--out', 'json']);
  t.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout) as { local: unknown };
};

t.test('execution functions print as salt-call --local --out json', async (t) => {
  t.same(await json(['test.ping']), { local: true });
  t.same(await json(['cmd.run', 'echo hi']), { local: 'hi' });
  t.same(await json(['cmd.run', 'echo a | tr a b']), { local: 'b' }, 'a command-line call goes through the shell');
  const bash = readFileSync('/var/lib/dpkg/status', 'utf8')
    .split('\n\n')
    .find((p) => p.startsWith('Package: bash\n'))!;
  t.same(await json(['pkg.version', 'bash']), { local: /\nVersion: (\S+)/.exec(bash)![1] });
  t.same(await json(['file.file_exists', 'path=/etc/hosts']), { local: true });
  t.same(await json(['test.arg', '1', 'two', 'k=v']), { local: { args: [1, 'two'], kwargs: { k: 'v' } } });
  const nested = await brine(['local', 'test.ping']);
  t.equal(nested.stdout, 'local:\n    True\n');
  const unknown = await brine(['local', 'no.such']);
  t.equal(unknown.code, 1);
  t.match(unknown.stderr, /BRINE_ERR_EXEC_UNKNOWN_FUNCTION: 'no.such' is not available\./);
});

const CASE = join(REPO, 'test/fixtures/exec-conditions');

for (const [mode, file] of [
  ['run', 'salt-run.json'],
  ['test', 'salt-run-test.json'],
] as const) {
  t.test(`unless/onlyif fun: and module.run as Salt (${mode})`, async (t) => {
    const want = JSON.parse(readFileSync(join(CASE, file), 'utf8')) as Record<string, Record<string, unknown>>;
    const got = (await json(['state.apply', 'init', ...(mode === 'test' ? ['test=True'] : []), '--file-root', join(CASE, 'tree')])).local as Record<
      string,
      Record<string, unknown>
    >;
    t.same(Object.keys(got).sort(), Object.keys(want).sort());
    for (const [tag, w] of Object.entries(want)) {
      const g = got[tag]!;
      t.same(
        { result: g.result, comment: g.comment, changes: g.changes, skip_watch: g.skip_watch },
        { result: w.result, comment: w.comment, changes: w.changes, skip_watch: w.skip_watch },
        tag,
      );
    }
  });
}
