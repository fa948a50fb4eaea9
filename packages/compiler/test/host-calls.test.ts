/** Host calls at render time: answered from the table, recorded when missing, asked in rounds. */
import t from 'tap';
import type { HostAnswer, HostCall } from '@brine/jinja';
import { hostCallKey, renderTemplateString } from '@brine/jinja';
import { compileAsking, compileSls, memoryTree, renderSls, validateSls, type CompileOptions } from '../src/index.js';

const SLS = `{% if salt['cmd.has_exec']('some-tool') %}
tool:
  cmd.run:
    - name: some-tool --setup
{% else %}
no-tool:
  test.nop: []
{% endif %}
{% set home = salt['user.info']('ann').get('home', '/nowhere') %}
home:
  file.directory:
    - name: {{ home }}
`;

function opts(files: Record<string, string>): CompileOptions {
  return { tree: memoryTree({ base: files }), minion: { id: 'm1', grains: { id: 'm1', os_family: 'Debian' } }, render: renderSls };
}

/** A host that answers from a table of functions, and counts what it was asked. */
function host(funs: Record<string, (...args: unknown[]) => unknown>) {
  const asked: HostCall[][] = [];
  const ask = async (calls: HostCall[]): Promise<HostAnswer[]> => {
    asked.push(calls);
    return calls.map((c) => {
      const f = funs[c.fun];
      if (!f) return { ok: false, code: 'BRINE_ERR_EXEC_UNKNOWN_FUNCTION', message: `'${c.fun}' is not available` };
      return { ok: true, value: f(...c.args) };
    });
  };
  return { ask, asked };
}

t.test('an unanswered host call fails the compile, naming the call, file and line', async (t) => {
  const c = compileSls(opts({ 'app.sls': SLS }), ['app']);
  t.equal(c.failed, true);
  t.same(c.low, []);
  t.same(
    c.diagnostics.map((d) => [d.code, d.file, d.line]),
    [
      ['BRINE_ERR_COMPILE_HOST_CALL', 'app.sls', 1],
      ['BRINE_ERR_COMPILE_HOST_CALL', 'app.sls', 9],
    ],
  );
  t.match(c.diagnostics[0]!.message, /salt\['cmd\.has_exec'\]\("some-tool"\)/);
  t.same(
    c.hostCalls.map((h) => [h.fun, h.args, h.answered]),
    [
      ['cmd.has_exec', ['some-tool'], false],
      ['user.info', ['ann'], false],
    ],
  );
});

t.test('a call written in an imported file is named with that file', async (t) => {
  const files = {
    'map.jinja': "{% set found = salt['file.file_exists']('/etc/x.conf') %}",
    'app.sls': "{% from 'map.jinja' import found with context %}\nx:\n  test.nop:\n    - found: {{ found }}\n",
  };
  const c = compileSls(opts(files), ['app']);
  t.same(
    c.diagnostics.map((d) => [d.code, d.file, d.line]),
    [['BRINE_ERR_COMPILE_HOST_CALL', 'map.jinja', 1]],
  );
});

t.test('answers in the table are used; the two hosts compile differently', async (t) => {
  const run = async (hasTool: boolean) => {
    const h = host({ 'cmd.has_exec': (x) => hasTool && x === 'some-tool', 'user.info': () => ({ home: '/home/ann' }) });
    const { result, asked } = await compileAsking((hostAnswers) => compileSls({ ...opts({ 'app.sls': SLS }), hostAnswers }, ['app']), { ask: h.ask });
    return { result, asked };
  };
  const a = await run(true);
  const b = await run(false);
  t.equal(a.result.failed, false, a.result.diagnostics.map((d) => d.message).join('\n'));
  t.same(
    a.result.low.map((c) => c.__id__),
    ['tool', 'home'],
  );
  t.same(
    b.result.low.map((c) => c.__id__),
    ['no-tool', 'home'],
  );
  t.equal(a.result.low[1]!.name, '/home/ann');
  // both calls were collected in the first render and asked in one round trip
  t.equal(a.asked.length, 1);
  t.same(
    a.asked[0]!.map((c) => c.fun),
    ['cmd.has_exec', 'user.info'],
  );
  t.ok(a.result.hostCalls.every((c) => c.answered));
});

t.test('a call that depends on an earlier answer is asked in a later round; a call is asked once', async (t) => {
  const files = {
    'app.sls': `{% set tool = salt['cmd.which']('git') %}
{% if tool %}{% set v = salt['cmd.run'](tool ~ ' --version') %}{% endif %}
{% set again = salt['cmd.which']('git') %}
git:
  test.nop:
    - version: {{ v }}
    - again: {{ again }}
`,
    'other.sls': "{% include 'inc.jinja' %}\n",
    'inc.jinja': "o:\n  test.nop:\n    - w: {{ salt['cmd.which']('git') }}\n",
  };
  const h = host({ 'cmd.which': (x) => `/usr/bin/${x}`, 'cmd.run': (x) => `ran ${x}` });
  const { result, asked } = await compileAsking((hostAnswers) => compileSls({ ...opts(files), hostAnswers }, ['app', 'other']), { ask: h.ask });
  t.equal(result.failed, false, result.diagnostics.map((d) => d.message).join('\n'));
  t.same(
    asked.map((r) => r.map((c) => c.fun)),
    [['cmd.which'], ['cmd.run']],
  );
  t.same(
    result.low.map((c) => [c.__id__, c.version ?? c.w]),
    [
      ['git', 'ran /usr/bin/git --version'],
      ['o', '/usr/bin/git'],
    ],
  );
});

t.test('includes of a file with unanswered calls are followed in the same round', async (t) => {
  const files = {
    'a.sls': "include:\n  - b\n{% if salt['file.directory_exists']('/srv') %}\na:\n  test.nop: []\n{% endif %}\n",
    'b.sls': "b:\n  test.nop:\n    - u: {{ salt['user.info']('bob') }}\n",
  };
  const h = host({ 'file.directory_exists': () => true, 'user.info': () => ({ name: 'bob' }) });
  const { result, asked } = await compileAsking((hostAnswers) => compileSls({ ...opts(files), hostAnswers }, ['a']), { ask: h.ask });
  t.equal(result.failed, false);
  t.equal(asked.length, 1);
  t.same(
    result.low.map((c) => c.__id__),
    ['b', 'a'],
  );
});

t.test('a command in a branch a placeholder chose is not run; a query there is asked at once', async (t) => {
  const files = {
    'app.sls':
      "{% if not salt['file.file_exists']('/etc/done') %}{% do salt['cmd.run']('initialize') %}{% endif %}\n{% set u = salt['user.info']('ann') %}\nx:\n  test.nop:\n    - u: {{ u.name }}\n",
    'b.sls': "include:\n  - c\n{% set ok = salt['cmd.has_exec']('x') %}\n",
    'c.sls': "c:\n  test.nop:\n    - r: {{ salt['cmd.run']('echo from c') }}\n",
  };
  const h = host({ 'file.file_exists': () => true, 'user.info': () => ({ name: 'ann' }), 'cmd.has_exec': () => true, 'cmd.run': (x) => x });
  const { result, asked } = await compileAsking((hostAnswers) => compileSls({ ...opts(files), hostAnswers }, ['app']), { ask: h.ask });
  t.equal(result.failed, false);
  t.same(
    asked.map((r) => r.map((c) => c.fun)),
    [['file.file_exists', 'user.info']],
  );
  // c is included by a file that had unanswered calls: its command waits for a real render of b
  const inc = await compileAsking((hostAnswers) => compileSls({ ...opts(files), hostAnswers }, ['b']), { ask: h.ask });
  t.equal(inc.result.failed, false);
  t.same(
    inc.asked.map((r) => r.map((c) => c.fun)),
    [['cmd.has_exec'], ['cmd.run']],
  );
  t.same(inc.result.low[0]!.r, 'echo from c');
});

t.test('rounds are bounded: a chain of calls longer than the bound is a coded error', async (t) => {
  const files = {
    'app.sls':
      "{% set n = namespace(v='0') %}{% for i in range(10) %}{% set n.v = salt['cmd.run']('echo ' ~ n.v) %}{% endfor %}\nx:\n  test.nop:\n    - v: {{ n.v }}\n",
  };
  const h = host({ 'cmd.run': (x) => String(x).replace('echo ', '') + '1' });
  const { result, asked } = await compileAsking((hostAnswers) => compileSls({ ...opts(files), hostAnswers }, ['app']), { ask: h.ask, rounds: 3 });
  t.equal(asked.length, 3);
  t.equal(result.failed, true);
  t.same(
    result.diagnostics.map((d) => [d.code, d.file, d.line]),
    [['BRINE_ERR_COMPILE_HOST_ROUNDS', 'app.sls', 1]],
  );
});

t.test('a host that does not answer fails the compile naming the call and the reason', async (t) => {
  const { result } = await compileAsking((hostAnswers) => compileSls({ ...opts({ 'app.sls': SLS }), hostAnswers }, ['app']), {
    ask: async () => {
      throw new Error('the minion is not connected');
    },
    minion: 'm1',
  });
  t.equal(result.failed, true);
  t.same(
    result.diagnostics.map((d) => [d.code, d.line]),
    [
      ['BRINE_ERR_COMPILE_HOST_UNANSWERED', 1],
      ['BRINE_ERR_COMPILE_HOST_UNANSWERED', 9],
    ],
  );
  t.match(result.diagnostics[0]!.message, /'m1' did not answer.*not connected/);
  const bad = await compileAsking((hostAnswers) => compileSls({ ...opts({ 'app.sls': SLS }), hostAnswers }, ['app']), {
    ask: async () => [{ ok: true, value: 1 }] as HostAnswer[],
  });
  t.match(bad.result.diagnostics[0]!.message, /1 answers for 2 calls/);
});

t.test("an error on the host fails the template at the caller's line", async (t) => {
  const h = host({ 'cmd.has_exec': () => false });
  const { result } = await compileAsking((hostAnswers) => compileSls({ ...opts({ 'app.sls': SLS }), hostAnswers }, ['app']), { ask: h.ask });
  t.equal(result.failed, true);
  t.same(
    result.diagnostics.map((d) => [d.code, d.file, d.line]),
    [['BRINE_ERR_COMPILE_TEMPLATE', 'app.sls', 9]],
  );
  t.match(result.diagnostics[0]!.message, /salt\['user\.info'\]\("ann"\) failed on the minion: 'user\.info' is not available/);
});

t.test('pure helpers stay on the master; salt.mod.fun and salt["mod.fun"] are the same call', async (t) => {
  const files = {
    'app.sls':
      "{% set a = salt.cmd.has_exec('x') %}{% set b = salt['cmd.has_exec']('x') %}{% set c = salt.file.file_exists(path='/p') %}\nx:\n  test.nop:\n    - j: {{ salt['file.join']('/a', 'b') }}\n    - g: {{ salt['grains.get']('os_family') }}\n    - f: {{ salt['grains.filter_by']({'Debian': 1}) }}\n    - s: {{ salt['slsutil.merge']({'a': 1}, {'b': 2}) | json }}\n    - abc: {{ [a, b, c] | json }}\n",
  };
  const h = host({ 'cmd.has_exec': () => true, 'file.file_exists': () => false });
  const { result, asked } = await compileAsking((hostAnswers) => compileSls({ ...opts(files), hostAnswers }, ['app']), { ask: h.ask });
  t.equal(result.failed, false, result.diagnostics.map((d) => d.message).join('\n'));
  t.same(asked, [
    [
      { fun: 'cmd.has_exec', args: ['x'], kwargs: {} },
      { fun: 'file.file_exists', args: [], kwargs: { path: '/p' } },
    ],
  ]);
  const chunk = result.low[0]!;
  t.same([chunk.j, chunk.g, chunk.f, chunk.s, chunk.abc], ['/a/b', 'Debian', 1, { a: 1, b: 2 }, [true, true, false]]);
});

t.test('the same call with keywords in another order is one call', async (t) => {
  t.equal(hostCallKey({ fun: 'f', args: [1], kwargs: { a: 1, b: { y: 1, x: 2 } } }), hostCallKey({ fun: 'f', args: [1], kwargs: { b: { x: 2, y: 1 }, a: 1 } }));
});

t.test('validate without a minion fails with the coded error', async (t) => {
  const res = validateSls(opts({ 'app.sls': SLS }), ['app']);
  t.equal(res.failed, true);
  t.same(
    res.diagnostics.map((d) => [d.code, d.file, d.line]),
    [
      ['BRINE_ERR_COMPILE_HOST_CALL', 'app.sls', 1],
      ['BRINE_ERR_COMPILE_HOST_CALL', 'app.sls', 9],
    ],
  );
});

t.test('a template string with host answers reports its calls; without a host a call fails', async (t) => {
  const key = hostCallKey({ fun: 'cmd.has_exec', args: ['git'], kwargs: {} });
  const r = renderTemplateString("{{ salt['cmd.has_exec']('git') }}", { name: 'x', hostAnswers: new Map([[key, { ok: true, value: true }]]) });
  t.same(r, {
    ok: true,
    text: 'True',
    hostCalls: [{ fun: 'cmd.has_exec', args: ['git'], kwargs: {}, file: 'x', line: 1, column: 24, key, answered: true, speculative: false }],
  });
  const missing = renderTemplateString("\n{{ salt['cmd.has_exec']('svn') }}", { name: 'x', hostAnswers: new Map() });
  t.equal(missing.ok, false);
  if (!missing.ok) t.match([missing.error.line, missing.error.message], [2, /has no answer from the host/]);
  const none = renderTemplateString("{{ salt['cmd.has_exec']('git') }}", { name: 'x' });
  t.equal(none.ok, false);
  if (!none.ok) t.match(none.error.message, /needs the host, and there is no host to ask here/);
});
