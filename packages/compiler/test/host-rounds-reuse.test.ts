/** A later round of host calls renders again only the files whose renders met a host call. */
import t from 'tap';
import type { HostAnswer, HostCall } from '@brine/jinja';
import { compileAsking, compileHighstate, compileSls, memoryTree, renderSls, type CompileOptions, type RenderInput } from '../src/index.js';

const FILES = {
  'top.sls': "{{ saltenv }}:\n  '*':\n    - plain\n    - asks\n    - importer\n    - other\n",
  'map.jinja': "{% set home = salt['user.info']('ann').get('home', '/nowhere') %}\n",
  'plain.sls': 'include:\n  - .leaf\nplain:\n  test.nop:\n    - n: {{ grains.id }}\n',
  'leaf.sls': 'leaf:\n  test.nop:\n    - name: {{ sls }}\n    - require:\n      - test: plain\n',
  'asks.sls': "{% if salt['file.directory_exists']('/srv') %}\nsrv:\n  test.nop: []\n{% endif %}\n",
  'importer.sls': "{% from 'map.jinja' import home %}\nhome:\n  file.directory:\n    - name: {{ home }}\n",
  'other.sls': 'other:\n  test.nop:\n    - order: 1\n',
};

function ask(asked: HostCall[][]) {
  return async (calls: HostCall[]): Promise<HostAnswer[]> => {
    asked.push(calls);
    return calls.map((c) => ({ ok: true, value: c.fun === 'user.info' ? { home: '/home/ann' } : true }));
  };
}

/** Options whose render records the files it renders, one list per compile. */
function counting(): { opts: CompileOptions; rounds: string[][] } {
  const rounds: string[][] = [];
  const render = (input: RenderInput) => {
    rounds[rounds.length - 1]!.push(input.path);
    return renderSls(input);
  };
  const opts: CompileOptions = { tree: memoryTree({ base: FILES }), minion: { id: 'm1', grains: { id: 'm1' } }, pillar: { p: 1 }, render };
  return { opts, rounds };
}

t.test('round two renders only the file that asked, the one whose import asked, and plain YAML', async (t) => {
  const { opts, rounds } = counting();
  const asked: HostCall[][] = [];
  const { result } = await compileAsking(
    (hostAnswers) => {
      rounds.push([]);
      return compileHighstate({ ...opts, hostAnswers });
    },
    { ask: ask(asked) },
  );
  t.equal(result.failed, false, result.diagnostics.map((d) => d.message).join('\n'));
  t.equal(asked.length, 1);
  t.same(rounds, [
    ['top.sls', 'plain.sls', 'leaf.sls', 'asks.sls', 'importer.sls', 'other.sls'],
    ['asks.sls', 'importer.sls', 'other.sls'],
  ]);
  // (other.sls has no Jinja: parsing it again costs what keeping a copy would)
  // the same as a compile that had every answer from the start
  const fresh = counting();
  fresh.rounds.push([]);
  const answers = new Map<string, HostAnswer>();
  await compileAsking((hostAnswers) => compileHighstate({ ...fresh.opts, hostAnswers }), { ask: ask([]), answers });
  const once = compileHighstate({ ...fresh.opts, hostAnswers: answers });
  t.same(JSON.stringify(result), JSON.stringify(once));
});

t.test('a reused render is the same after the compile that used it changed its high data', async (t) => {
  const { opts, rounds } = counting();
  const third = "{% if salt['file.directory_exists']('/srv') %}{% if salt['file.directory_exists']('/opt') %}\nx:\n  test.nop: []\n{% endif %}{% endif %}\n";
  opts.tree = memoryTree({ base: { ...FILES, 'asks.sls': third } });
  const { result } = await compileAsking(
    (hostAnswers) => {
      rounds.push([]);
      return compileSls({ ...opts, hostAnswers }, ['plain', 'asks']);
    },
    { ask: ask([]) },
  );
  t.same(rounds, [['plain.sls', 'leaf.sls', 'asks.sls'], ['asks.sls'], ['asks.sls']]);
  t.same(
    result.low.map((c) => [c.__id__, c.order]),
    [
      ['leaf', 10000],
      ['plain', 10001],
      ['x', 10002],
    ],
  );
  const answers = new Map<string, HostAnswer>();
  await compileAsking((hostAnswers) => compileSls({ ...opts, hostAnswers }, ['plain', 'asks']), { ask: ask([]), answers });
  t.same(JSON.stringify(result), JSON.stringify(compileSls({ ...opts, hostAnswers: new Map(answers) }, ['plain', 'asks'])));
});

t.test('with another pillar (or grains) in a round, every file is rendered again', async (t) => {
  const { opts, rounds } = counting();
  await compileAsking(
    (hostAnswers) => {
      rounds.push([]);
      return compileHighstate({ ...opts, pillar: { p: rounds.length }, hostAnswers });
    },
    { ask: ask([]) },
  );
  t.same(rounds[1], rounds[0]);
});
