/** renderSls: renderer pipe, template variables, positions, conformance with Salt's p18 case. */
import t from 'tap';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderSls } from '../src/render/index.js';
import { memoryTree } from '../src/state-tree.js';

const context = { grains: { id: 'anchor', os_family: 'Debian' }, pillar: {}, params: {} };

function render(files: Record<string, string>, path: string, sls?: string, extra: Record<string, unknown> = {}) {
  const tree = memoryTree({ base: files });
  return renderSls({ tree, env: 'base', path, sls, text: files[path], context: { ...context, ...extra } });
}

t.test('p18-jinja renders to the high data Salt showed (before reconcile)', async (t) => {
  const dir = new URL('../../../test/fixtures/conformance/p18-jinja/', import.meta.url);
  const main = readFileSync(fileURLToPath(new URL('tree/main.sls', dir)), 'utf8');
  const salt = JSON.parse(readFileSync(fileURLToPath(new URL('salt-high.json', dir)), 'utf8'));
  const out = render({ 'main.sls': main }, 'main.sls', 'main');
  t.same(out.diagnostics, []);
  // Salt's show_highstate has the short declarations split and __sls__/__env__/order injected;
  // undo that to compare with the raw render.
  const expected: Record<string, unknown> = {};
  for (const [id, decl] of Object.entries(salt as Record<string, Record<string, unknown>>)) {
    const out: Record<string, unknown> = {};
    for (const [state, args] of Object.entries(decl)) {
      if (state.startsWith('__')) continue;
      const list = args as unknown[];
      const fun = list.find((a) => typeof a === 'string') as string;
      out[`${state}.${fun}`] = list.filter((a) => typeof a !== 'string' && !(a && typeof a === 'object' && 'order' in a));
    }
    expected[id] = out;
  }
  t.same(out.high, expected);
  t.same(Object.keys(out.high ?? {}), Object.keys(expected), 'same ID order');
});

t.test('renderer pipe', async (t) => {
  t.same(render({ 'a.sls': '#!yaml\nx: "{{ y }}"\n' }, 'a.sls', 'a').high, { x: '{{ y }}' }, '#!yaml skips jinja');
  t.same(render({ 'a.sls': '#!jinja|yaml\nx: {{ 1 + 1 }}\n' }, 'a.sls', 'a').high, { x: 2 });
  // Salt runs the pipe in order: Jinja after YAML has data, not text, to render (Salt fails too)
  t.equal(render({ 'a.sls': '#! yaml | jinja\nx: "{{ 1 + 1 }}"\n' }, 'a.sls', 'a').diagnostics[0]?.code, 'BRINE_ERR_COMPILE_RENDERER');
  t.same(render({ 'a.sls': '#!json\n{"b": 1, "a": {"c": 2}}' }, 'a.sls', 'a').high, { b: 1, a: { c: 2 } });
  const py = render({ 'a.sls': '#!pyobjects\nFile.managed("/x")\n' }, 'a.sls', 'a');
  t.equal(py.diagnostics[0].code, 'BRINE_ERR_COMPILE_RENDERER_PYTHON');
  t.match(py.diagnostics[0].message, /pyobjects/);
  const bad = render({ 'a.sls': '#!jinja|yaml\n\nx: [\n' }, 'a.sls', 'a');
  t.equal(bad.diagnostics[0].code, 'BRINE_ERR_COMPILE_YAML');
  t.equal(bad.diagnostics[0].line, 4, 'line numbers count the shebang line');
});

t.test('#!py and the other Python renderers: refused, naming the file, line 1 and what to write instead', async (t) => {
  for (const r of ['py', 'pydsl', 'mako', 'jinja|py']) {
    const out = render({ 'web/init.sls': `#!${r}\ndef run():\n  return {}\n` }, 'web/init.sls', 'web');
    t.equal(out.high, undefined, r);
    t.equal(out.diagnostics[0]?.code, 'BRINE_ERR_COMPILE_RENDERER_PYTHON', r);
    t.match(out.diagnostics[0]?.message, /web\/init\.sls: line 1: .*runs Python.*#!jinja\|yaml/, r);
    t.equal(out.diagnostics[0]?.line, 1);
  }
  // Salt has no `text` renderer: it logs "not available" and renders nothing; Brine refuses it
  const text = render({ 'a.sls': '#!text\nhello\n' }, 'a.sls', 'a');
  t.equal(text.diagnostics[0]?.code, 'BRINE_ERR_COMPILE_RENDERER');
  t.match(text.diagnostics[0]?.message, /'text'/);
});

t.test('#!yamlex and #!jinja|json', async (t) => {
  const yx = render({ 'a.sls': '#!yamlex\nx:\n  test.nop:\n    - v: !aggregate 1\n    - w: !aggregate [1, 2]\n    - z: on\n' }, 'a.sls', 'a');
  t.same(yx.high, { x: { 'test.nop': [{ v: [1] }, { w: [1, 2] }, { z: true }] } });
  t.same(render({ 'a.sls': '#!jinja|json\n{"x{{ 1 }}": "{{ grains.id }}"}' }, 'a.sls', 'a').high, { x1: 'anchor' });
});

t.test('#!yaml|gpg: PGP blocks go to the gpg sink for the master; without one (a state file) the render fails', async (t) => {
  const block = '-----BEGIN PGP MESSAGE-----\n\nhQEMA0\n=abcd\n-----END PGP MESSAGE-----';
  const text = `#!jinja|yaml|gpg\nsecret: |\n  ${block.split('\n').join('\n  ')}\nplain: '{{ grains.id }}'\n`;
  const gpg = new Map<string, string>();
  const out = render({ 'p.sls': text }, 'p.sls', 'p', { gpg });
  t.same(out.diagnostics, []);
  t.same([...gpg], [[block, 'p.sls']]);
  t.equal((out.high as Record<string, unknown>).plain, 'anchor');
  const state = render({ 'p.sls': text }, 'p.sls', 'p');
  t.equal(state.diagnostics[0]?.code, 'BRINE_ERR_COMPILE_GPG_NOT_HERE');
  t.match(state.diagnostics[0]?.message, /p\.sls/);
  // without a block the gpg step changes nothing and needs no sink
  t.same(render({ 'p.sls': '#!yaml|gpg\na: 1\n' }, 'p.sls', 'p').high, { a: 1 });
});

t.test('template variables', async (t) => {
  const files = {
    'web/nginx/init.sls':
      'x:\n  test.nop:\n    - v: "{{ sls }}|{{ slspath }}|{{ sls_path }}|{{ tpldir }}|{{ tplroot }}|{{ tplfile }}|{{ saltenv }}|{{ grains.id }}|{{ opts.id }}|{{ params.p }}|{{ extra_var }}"\n',
    'web/tls.sls': 'x:\n  test.nop:\n    - v: "{{ sls }}|{{ slspath }}|{{ tpldir }}"\n',
    'top.sls': "base:\n  '{{ grains.id }}':\n    - web\n",
  };
  const ctx = { params: { p: 'P' }, extra: { extra_var: 'E' } };
  t.same(render(files, 'web/nginx/init.sls', 'web.nginx', ctx).high, {
    x: { 'test.nop': [{ v: 'web.nginx|web/nginx|web_nginx|web/nginx|web|web/nginx/init.sls|base|anchor|anchor|P|E' }] },
  });
  t.same(render(files, 'web/tls.sls', 'web.tls').high, { x: { 'test.nop': [{ v: 'web.tls|web|web' }] } });
  t.same(render(files, 'top.sls').high, { base: { anchor: ['web'] } }, 'top file (no sls)');
});

t.test('positions', async (t) => {
  const out = render({ 'a.sls': '\nid1:\n  pkg.installed:\n    - name: x\n    - require:\n      - file: f\n  service:\n    - running\n' }, 'a.sls', 'a');
  t.same(out.positions, {
    file: 'a.sls',
    ids: {
      id1: {
        pos: { file: 'a.sls', line: 2, column: 1 },
        states: { 'pkg.installed': { file: 'a.sls', line: 3, column: 3 }, service: { file: 'a.sls', line: 7, column: 3 } },
        args: {
          'pkg.installed/name': { file: 'a.sls', line: 4, column: 7 },
          'pkg.installed/require': { file: 'a.sls', line: 5, column: 7 },
        },
      },
    },
  });
});

t.test('log helper goes to the callback', async (t) => {
  const seen: string[] = [];
  render({ 'a.sls': "{% do salt.log.warning('careful %s' % 1) %}a: {}\n" }, 'a.sls', 'a', { log: (l: string, m: string) => seen.push(`${l}:${m}`) });
  t.same(seen, ['warning:careful 1']);
});

t.test('errors name the file and position', async (t) => {
  const files = { 'a.sls': 'x:\n  test.nop:\n    - name: {{ salt.no_such.fn().x.y }}\n', 'b.sls': "{% include 'inc.jinja' %}", 'inc.jinja': '\n{{ 1 + }}' };
  // a function the master does not have is asked of the host: unanswered here
  const a = render(files, 'a.sls', 'a');
  t.equal(a.diagnostics[0].code, 'BRINE_ERR_COMPILE_HOST_CALL');
  t.equal(a.diagnostics[0].file, 'a.sls');
  t.equal(a.diagnostics[0].line, 3);
  t.equal(a.diagnostics[0].sls, 'a');
  const b = render(files, 'b.sls', 'b');
  t.equal(b.diagnostics[0].code, 'BRINE_ERR_COMPILE_TEMPLATE');
  t.equal(b.diagnostics[0].file, 'inc.jinja');
  t.equal(b.diagnostics[0].line, 2);
  const missing = render({ 'c.sls': "{% include 'nope.jinja' %}" }, 'c.sls', 'c');
  t.match(missing.diagnostics[0].message, /nope\.jinja/);
  t.equal(render({ 'd.sls': 'just a string\n' }, 'd.sls', 'd').diagnostics[0].code, 'BRINE_ERR_COMPILE_NOT_A_DICT');
});

t.test('environment is reused and compiled templates are cached', async (t) => {
  const files = { 'a.sls': '{% for i in range(3) %}\ns{{ i }}:\n  test.nop: []\n{% endfor %}' };
  const tree = memoryTree({ base: files });
  const first = renderSls({ tree, env: 'base', path: 'a.sls', sls: 'a', text: files['a.sls'], context });
  const second = renderSls({ tree, env: 'base', path: 'a.sls', sls: 'a', text: files['a.sls'], context });
  t.same(first.high, second.high);
  t.same(Object.keys(first.high ?? {}), ['s0', 's1', 's2']);
});

t.test('#!mjs: the module is asked for as a host call with its source and context, then its data is the file', async (t) => {
  const text = "#!mjs\nexport default ({ id }) => ({ [id]: { 'test.nop': [] } });\n";
  const first = render({ 'app.sls': text }, 'app.sls', 'app', { pillar: { role: 'web' } });
  t.equal(first.high, undefined, 'no answer yet: no data');
  t.equal(first.diagnostics[0]?.code, 'BRINE_ERR_COMPILE_HOST_CALL');
  const [call] = first.hostCalls ?? [];
  t.match(call, {
    fun: 'renderer.mjs',
    args: ['app.sls', text.slice(text.indexOf('\n')), { id: 'anchor', grains: { os_family: 'Debian' }, pillar: { role: 'web' }, sls: 'app', saltenv: 'base' }],
  });
  const answers = new Map([[call!.key, { ok: true as const, value: { anchor: { 'test.nop': [] } } }]]);
  const second = render({ 'app.sls': text }, 'app.sls', 'app', { pillar: { role: 'web' }, hostAnswers: answers });
  t.same(second.diagnostics, []);
  t.same(second.high, { anchor: { 'test.nop': [] } });
  const failed = render({ 'app.sls': text }, 'app.sls', 'app', {
    pillar: { role: 'web' },
    hostAnswers: new Map([[call!.key, { ok: false as const, code: 'BRINE_ERR_COMPILE_MJS', message: 'it ran longer than 30 s' }]]),
  });
  t.match(failed.diagnostics[0], { code: 'BRINE_ERR_COMPILE_MJS', line: 1, message: /app\.sls: the #!mjs module did not render: it ran longer than 30 s/ });
  const piped = render({ 'app.sls': '#!mjs|yaml\nexport default () => ({});\n' }, 'app.sls', 'app');
  t.equal(piped.diagnostics[0]?.code, 'BRINE_ERR_COMPILE_RENDERER_MJS_ALONE');
});

t.test("#!mjs where nothing answers it (a pillar file): the message names the file, never the module's source or the pillar", async (t) => {
  const out = render({ 'p.sls': "#!mjs\nexport default () => ({ secret: 'hunter2' });\n" }, 'p.sls', 'p', { pillar: { db_password: 's3cret' } });
  const message = out.diagnostics.map((d) => d.message).join('\n');
  t.match(message, /the #!mjs render of "p\.sls"/);
  t.notMatch(message, /hunter2|s3cret/);
});
