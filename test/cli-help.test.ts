import t from 'tap';
import { brine } from './support/brine-cli.js';

const VERBS = ['local', 'master', 'minion', 'minions', 'key', 'run', 'jobs', 'events', 'event', 'demo', 'validate', 'pillar', 'store'];

t.test('every verb prints its usage with --help and -h, and exits 0', async (t) => {
  for (const verb of VERBS) {
    for (const flag of ['--help', '-h']) {
      const r = await brine([verb, flag]);
      t.equal(r.code, 0, `${verb} ${flag}: ${r.stderr}`);
      t.match(r.stdout, new RegExp(`^brine ${verb}: .*\\n\\nusage: brine ${verb}`), `${verb} ${flag}`);
    }
  }
  const help = await brine(['help', 'run']);
  t.match(help.stdout, /^brine run: /);
});

t.test('brine --version', async (t) => {
  for (const flag of ['--version', '-V']) {
    const r = await brine([flag]);
    t.equal(r.code, 0);
    t.match(r.stdout, /^brine \d+\.\d+\.\d+ \(node \d+\./);
  }
});

t.test('a mistyped flag is a usage error naming it and the closest flag', async (t) => {
  const run = await brine(['run', '*', 'test.ping', '--timout', '5']);
  t.equal(run.code, 1);
  t.match(run.stderr, /BRINE_ERR_CLI_USAGE: unknown option '--timout' \(did you mean '--timeout'\?\)\nusage: brine run/);
  t.notMatch(run.stderr, /INTERNAL|place it at the end/);
  const local = await brine(['local', 'test.ping', '--fil-root', 'x']);
  t.match(local.stderr, /unknown option '--fil-root' \(did you mean '--file-root'\?\)/);
  const far = await brine(['key', 'list', '--zzzzzzzz']);
  t.match(far.stderr, /unknown option '--zzzzzzzz'\nusage: brine key/, 'no suggestion when nothing is close');
  const jobs = await brine(['jobs', 'list', '--limit']);
  t.match(jobs.stderr, /BRINE_ERR_CLI_USAGE: option '--limit <value>' argument missing/);
});

t.test('brine local speaks every Salt outputter name and refuses others', async (t) => {
  const { mkdtempSync, writeFileSync } = await import('node:fs');
  const dir = mkdtempSync('/tmp/brine-out-');
  writeFileSync(`${dir}/a.sls`, 'a:\n  test.succeed_without_changes: []\n');
  const args = ['local', 'state.sls', 'a', '--file-root', dir];
  const raw = await brine([...args, '--out', 'raw']);
  t.match(raw.stdout, /^\{'local': \{'test_\|-a_\|-a_\|-succeed_without_changes': \{'name': 'a', 'changes': \{\}, 'result': True, 'comment': 'Success!'/);
  const txt = await brine([...args, '--out', 'txt']);
  t.match(txt.stdout, /^local: \{'test_\|-a_/);
  const quiet = await brine([...args, '--out', 'quiet']);
  t.equal(quiet.stdout, '');
  t.equal(quiet.code, 0);
  const nested = await brine([...args, '--out', 'nested']);
  t.match(nested.stdout, /^local:\n {4}----------\n {4}test_\|-a_\|-a_\|-succeed_without_changes:/);
  const bad = await brine([...args, '--out', 'xml']);
  t.equal(bad.code, 1);
  t.match(bad.stderr, /unknown output 'xml'/);
});
