import t from 'tap';
import { memoryTree, renderSls, strictParams, validateSls, type RenderContext } from '../src/index.js';

/**
 * The two params objects templates can see: the strict dictionary of `brine local` (a missing
 * `params['k']` fails naming key, file and line; everything else is a plain dict) and the
 * recording stand-ins of `brine validate` (method calls, iteration, printing).
 */
function render(text: string, params: Record<string, unknown>) {
  const context: RenderContext = { grains: {}, pillar: {}, params };
  return renderSls({ tree: memoryTree({ base: { 'a.sls': text } }), env: 'base', sls: 'a', path: 'a.sls', text, context });
}

t.test('strict params behave as a dictionary', async (t) => {
  const params = strictParams({ db: { host: 'h', port: 5 }, tags: ['x', 'y'] });
  const out = render(
    [
      'r:',
      '  test.nop:',
      "    - a: {{ params.get('missing', 'dflt') }}",
      "    - b: {{ params.db.host }}:{{ params['db']['port'] }}",
      "    - c: {{ 'db' in params }} {{ 'nope' in params }} {{ params.get('db').get('user') }}",
      "    - d: {{ params.tags | join(',') }} {% for k, v in params.db.items() %}{{ k }}={{ v }} {% endfor %}",
      '    - e: {{ params | tojson }}',
    ].join('\n'),
    params,
  );
  t.same(out.diagnostics, []);
  const args = (out.high!.r as { 'test.nop': Array<Record<string, unknown>> })['test.nop'];
  t.same(args, [{ a: 'dflt' }, { b: 'h:5' }, { c: 'True False None' }, { d: 'x,y host=h port=5' }, { e: { db: { host: 'h', port: 5 }, tags: ['x', 'y'] } }]);
});

t.test('strict params: a missing key fails naming the key, the file and the line', async (t) => {
  const params = strictParams({ db: { host: 'h' } });
  const top = render('x: 1\ny: {{ params.nope }}\n', params);
  t.match(top.diagnostics, [{ code: 'BRINE_ERR_COMPILE_TEMPLATE', file: 'a.sls', line: 2, message: /params has no key 'nope'/ }]);
  const nested = render("x: 1\n\n{% set u = params['db']['user'] %}\n", params);
  t.match(nested.diagnostics, [
    { code: 'BRINE_ERR_COMPILE_TEMPLATE', line: 3, message: /params\['db'\] has no key 'user' \(use params\['db'\]\.get\('user', default\)/ },
  ]);
});

t.test('recording params: calls, iteration, filters and expressions put back', async (t) => {
  const text = [
    "{% set names = params.get('names', ['a']) %}",
    '{% for n in names %}',
    'pkg-{{ n | lower }}:',
    '  pkg.installed:',
    "    - version: {{ params['versions'][n].strip() }}",
    "    - opts: {{ params.get('opts').keys() | list }}",
    '{% endfor %}',
  ].join('\n');
  const res = validateSls({ tree: memoryTree({ base: { 'a.sls': text } }), minion: { id: 'm', grains: {} } }, ['a']);
  t.equal(res.failed, false, JSON.stringify(res.diagnostics));
  t.same(Object.keys(res.report.high), ["pkg-{{ params.get('names', ['a']) }}"]);
  t.same(res.report.parameters.GLOBAL, { names: ['a'], versions: { "{{ params.get('names', ['a']) }}": '' }, opts: '' });
  t.same(res.report.warnings.GLOBAL, []);
  t.match(res.report.low[0], { version: "{{ params['versions'][params.get('names', ['a'])] }}", opts: ["{{ params.get('opts') }}"] });
});
