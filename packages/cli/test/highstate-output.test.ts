import t from 'tap';
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import type { RunningDict } from '@brine/core';
import { formatHighstate, formatNested } from '../src/output/highstate.js';

// Golden: what `salt-call --local --no-color state.apply` printed for the conformance cases that
// recorded it. The running dicts there lost start_time/duration (normalised away), so values of
// Started, Duration, Total run time and pid are ignored on both sides.
const root = new URL('../../../test/fixtures/conformance/', import.meta.url).pathname;

function normalise(text: string): string {
  const lines = text.replace(/\n+$/, '').split('\n');
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    let l = lines[i]!;
    l = l
      .replace(/( Started: ).*$/, '$1X')
      .replace(/(Duration: ).*$/, '$1X')
      .replace(/^(Total run time:).*$/, '$1 X');
    if (i > 0 && /^\s+pid:$/.test(lines[i - 1]!)) l = l.replace(/\d+/, 'PID');
    out.push(l);
  }
  return out.join('\n');
}

const cases = readdirSync(root).filter((d) => existsSync(join(root, d, 'salt-highstate-output.txt')));
t.ok(cases.length >= 4, 'the four recorded outputs');
for (const dir of cases) {
  t.test(dir, async (t) => {
    const running = JSON.parse(readFileSync(join(root, dir, 'salt-run.json'), 'utf8')) as RunningDict;
    let n = 0;
    for (const r of Object.values(running)) {
      r.start_time = '21:12:10.917787';
      r.duration = 0.5 + n++;
    }
    const expected = readFileSync(join(root, dir, 'salt-highstate-output.txt'), 'utf8');
    const got = formatHighstate(running, { minion: 'local' });
    t.equal(normalise(got), normalise(expected));
  });
}

t.test('summary: test mode counts unchanged, seconds past 999 ms, colour only when asked', async (t) => {
  const running: RunningDict = {
    'test_|-a_|-a_|-succeed_with_changes': {
      name: 'a',
      changes: { x: 1 },
      result: null,
      comment: 'would',
      __sls__: 'm',
      __run_num__: 0,
      __id__: 'a',
      start_time: '10:00:00.000000',
      duration: 1500,
    },
    'test_|-b_|-b_|-nop': {
      name: 'b',
      changes: {},
      result: true,
      comment: 'ok',
      __sls__: 'm',
      __run_num__: 1,
      __id__: 'b',
      start_time: '10:00:01.000000',
      duration: 1,
    },
  };
  const out = formatHighstate(running, { minion: 'web1' });
  t.match(out, /Succeeded: 2 \(unchanged=1, changed=1\)/);
  t.match(out, /Total run time: {3}1\.501 s/);
  t.match(out, /Duration: 1\.0 ms/);
  t.notMatch(out, /\x1b\[/);
  t.match(formatHighstate(running, { minion: 'web1', color: true }), /\x1b\[1;33m/);
  const terse = formatHighstate(running, { minion: 'web1', mode: 'terse' });
  t.match(terse, / Name: a - Function: test\.succeed_with_changes - Result: Differs/);
  t.match(terse, / Name: b - Function: test\.nop - Result: Clean/);
  const changes = formatHighstate(running, { minion: 'web1', mode: 'changes' });
  t.match(changes, /ID: a/);
  t.match(changes, / Name: b - Function: test\.nop - Result: Clean/);
});

t.test('nested changes: lists, dicts in lists, multi-line strings, scalars', async (t) => {
  const lines = formatNested({ b: [1, 'two', { k: null }], a: 'x\ny', c: true }, 2);
  t.same(lines, [
    '  ----------',
    '  a:',
    '      x',
    '      y',
    '  b:',
    '      - 1',
    '      - two',
    '      |_',
    '        ----------',
    '        k:',
    '            None',
    '  c:',
    '      True',
  ]);
});

t.test("an orchestration step's changes show each minion's run as a highstate block (Salt's outputter)", async (t) => {
  const step = {
    'salt_|-db_|-db_|-state': {
      name: 'db',
      result: true,
      comment: 'States ran successfully. Updating db1.',
      __run_num__: 0,
      __sls__: 'orch',
      __id__: 'db',
      changes: {
        out: 'highstate',
        ret: {
          db1: {
            'test_|-pw_|-pw_|-succeed_with_changes': {
              name: 'pw',
              result: true,
              comment: 'Success!',
              __run_num__: 0,
              __sls__: 'db',
              __id__: 'pw',
              changes: { a: 1 },
            },
          },
        },
      },
    },
  } as unknown as RunningDict;
  const text = formatHighstate(step, { minion: 'm_master', color: false });
  t.match(text, /\n {14}db1:\n {14}----------\n {14} {10}ID: pw\n {14} {4}Function: test\.succeed_with_changes\n/);
  t.match(text, /\n {14}Summary for db1\n/);
  t.notMatch(text, /\bout:\n/, 'not the raw dict');
});

t.test('states print in __run_num__ order whatever the order of the dict; equal numbers keep theirs', async (t) => {
  const r = (n: number, comment: string) => ({ name: comment, changes: {}, result: true, comment, __run_num__: n, __id__: comment, __sls__: 'm' });
  const ids = (running: RunningDict) => [...formatHighstate(running, { minion: 'm', mode: 'terse' }).matchAll(/Name: (\w+)/g)].map((m) => m[1]);
  // a parallel state lands after the states started behind it; a listener comes last
  const running = {
    'test_|-a_|-a_|-nop': r(0, 'a'),
    'test_|-c_|-c_|-nop': r(2, 'c'),
    'test_|-b_|-b_|-nop': r(1, 'b'),
    'test_|-x_|-x_|-nop': r(3, 'x'),
    'test_|-y_|-y_|-nop': r(3, 'y'),
  } as unknown as RunningDict;
  t.same(ids(running), ['a', 'b', 'c', 'x', 'y']);
  const ordered = { 'test_|-a_|-a_|-nop': r(0, 'a'), 'test_|-b_|-b_|-nop': r(1, 'b') } as unknown as RunningDict;
  t.same(ids(ordered), ['a', 'b']);
});
