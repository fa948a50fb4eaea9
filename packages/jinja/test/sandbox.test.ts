/**
 * Templates are untrusted (the master renders every minion's SLS and pillar): no lookup, call,
 * filter or test may reach JavaScript internals. Each payload below is a known template
 * injection for nunjucks or Jinja, aimed at running code. Success for the attacker is a global
 * the payload sets, a file it writes, or `Object.prototype` changed; each render must fail or
 * print something harmless, and none of the three may happen.
 */
import t from 'tap';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { renderTemplateString, setRenderTimeout } from '../src/index.js';

const dir = mkdtempSync(join(tmpdir(), 'brine-sandbox-'));
const marker = join(dir, 'pwned');
const g = globalThis as { __brinePwned?: unknown };
/** JavaScript source a payload tries to run: sets a global and writes a file. */
const js = `globalThis.__brinePwned = 1; process.getBuiltinModule('fs').writeFileSync(${JSON.stringify(marker)}, 'x'); return 'ran'`;
const q = JSON.stringify(js);

const PAYLOADS: string[] = [
  // the reported ways in
  `{{ range.constructor(${q})() }}`,
  `{{ ''.constructor.constructor(${q})() }}`,
  `{{ (1).constructor.constructor(${q})() }}`,
  `{{ (range|attr('constructor'))(${q})() }}`,
  // the same through every kind of value a template holds
  `{{ [].constructor.constructor(${q})() }}`,
  `{{ {}.constructor.constructor(${q})() }}`,
  `{{ ''.upper.constructor(${q})() }}`,
  `{{ [].append.constructor(${q})() }}`,
  `{{ {}.items.constructor(${q})() }}`,
  `{{ ''.__proto__.constructor.constructor(${q})() }}`,
  `{{ [].__proto__.constructor.constructor(${q})() }}`,
  `{{ ''['constructor']['constructor'](${q})() }}`,
  `{{ ''|attr('constructor')|attr('constructor') }}`,
  `{{ ((''|attr('constructor'))|attr('constructor'))(${q})() }}`,
  `{{ namespace.constructor(${q})() }}`,
  `{{ namespace().constructor.constructor(${q})() }}`,
  `{{ dict.constructor(${q})() }}`,
  `{{ odict().constructor.constructor(${q})() }}`,
  `{{ raise.constructor(${q})() }}`,
  `{{ cycler.constructor(${q})() }}`,
  `{{ joiner().constructor.constructor(${q})() }}`,
  `{{ salt.constructor.constructor(${q})() }}`,
  `{{ salt['constructor']['constructor'](${q})() }}`,
  `{{ salt.pillar.get.constructor(${q})() }}`,
  `{{ salt['pillar.get'].constructor(${q})() }}`,
  `{{ grains.constructor.constructor(${q})() }}`,
  `{{ pillar.__proto__.constructor.constructor(${q})() }}`,
  `{{ opts.constructor.constructor(${q})() }}`,
  // names that resolve through the context's own prototype
  `{{ constructor.constructor(${q})() }}`,
  `{{ toString.constructor(${q})() }}`,
  `{{ valueOf.call.constructor(${q})() }}`,
  `{{ __proto__.constructor.constructor(${q})() }}`,
  `{{ hasOwnProperty.constructor(${q})() }}`,
  `{{ __lookupGetter__.constructor(${q})() }}`,
  // macros, callers, loops
  `{% macro m() %}x{% endmacro %}{{ m.constructor(${q})() }}`,
  `{% macro m() %}{{ caller.constructor(${q})() }}{% endmacro %}{% call m() %}y{% endcall %}`,
  `{% for i in [1] %}{{ loop.cycle.constructor(${q})() }}{% endfor %}`,
  `{% for i in [1] %}{{ loop.constructor.constructor(${q})() }}{% endfor %}`,
  // apply/call/bind on a function
  `{{ range.call.call(range.constructor, 0, ${q})() }}`,
  `{{ range.apply }}{{ range.bind }}{{ range.prototype }}{{ range.caller }}`,
  // Python's classic escapes mean nothing here, but must not crash into JavaScript either
  `{{ ''.__class__.__mro__[1].__subclasses__() }}`,
  `{{ self.__init__.__globals__ }}`,
  `{{ lipsum.__globals__.os.popen('id').read() }}`,
  `{{ config.__class__.__init__.__globals__['os'].popen('id').read() }}`,
  // str.format fields and %-formatting that walk attributes
  `{{ '{0.constructor.constructor}'.format(range) }}`,
  `{{ ('{0.constructor}'.format(range))(${q}) }}`,
  // filters and tests by an inherited name
  `{{ ${q} | constructor }}`,
  `{{ range is constructor }}`,
  `{{ [range] | map('constructor') | list }}`,
  `{{ [range] | map(attribute='constructor') | first }}`,
  `{{ ([range] | map(attribute='constructor') | first)(${q})() }}`,
  `{{ [range] | selectattr('constructor') | list }}`,
  `{{ ([range] | attr('pop'))().constructor(${q})() }}`,
  // namespaces are the one assignable object
  `{% set ns = namespace() %}{% set ns.__proto__ = {'x': 1} %}{{ ns.x }}`,
  `{% set ns = namespace() %}{% set ns.constructor = 1 %}{{ ns.constructor }}`,
  // prototype pollution through dict methods and merges
  `{% set d = {} %}{% do d.update({'__proto__': {'brinePolluted': 1}}) %}{{ {}.brinePolluted }}`,
  `{% set d = {'__proto__': {'brinePolluted': 1}} %}{{ d.brinePolluted }}`,
  `{% set d = {} %}{% do d.setdefault('__proto__', {}).update({'brinePolluted': 1}) %}`,
  `{% set d = {} %}{% do salt['slsutil.update'](d, {'__proto__': {'brinePolluted': 1}}) %}{{ {}.brinePolluted }}`,
  `{% set d = {} %}{% do salt['defaults.merge'](d, {'__proto__': {'brinePolluted': 1}}) %}{{ {}.brinePolluted }}`,
  `{% set d = salt['slsutil.merge']({}, {'__proto__': {'brinePolluted': 1}}) %}{{ {}.brinePolluted }}`,
  `{% load_yaml as y %}__proto__: {brinePolluted: 1}{% endload %}{% set d = {} %}{% do salt['slsutil.update'](d, y) %}{{ {}.brinePolluted }}`,
  `{% load_json as y %}{"__proto__": {"brinePolluted": 1}}{% endload %}{% set d = {} %}{% do d.update(y) %}{% do salt['defaults.merge'](d, y) %}{{ {}.brinePolluted }}`,
];

t.afterEach(async () => {
  delete g.__brinePwned;
  delete (Object.prototype as { brinePolluted?: unknown }).brinePolluted;
  rmSync(marker, { force: true });
});

for (const payload of PAYLOADS) {
  t.test(payload, async (t) => {
    const r = renderTemplateString(payload, { name: 'attack.sls', grains: { id: 'm1' }, pillar: {}, opts: {} });
    t.equal(g.__brinePwned, undefined, 'no code ran');
    t.notOk(existsSync(marker), 'no file was written');
    t.equal(({} as { brinePolluted?: unknown }).brinePolluted, undefined, 'Object.prototype is untouched');
    if (r.ok) t.notMatch(r.text, /\bran\b|function|native code|\[object|=>/, `prints nothing of JavaScript: ${r.text}`);
  });
}

t.test('the lookups Salt templates rely on still work', async (t) => {
  const render = (text: string, vars: Record<string, unknown> = {}) => {
    const r = renderTemplateString(text, { name: 'ok.sls', grains: { id: 'm1', os: 'Debian' }, pillar: { a: { b: 1 } }, opts: {}, vars });
    return r.ok ? r.text : `ERR ${r.error.message}`;
  };
  t.equal(render("{{ salt['pillar.get']('a:b') }} {{ salt.pillar.get('a:b') }} {{ grains.os }} {{ pillar.a.b }}"), '1 1 Debian 1');
  t.equal(render("{{ 'a,b'.split(',') | join('-') }} {{ [3, 1] | sort | first }} {{ {'k': 2}.items() | list }}"), "a-b 1 [('k', 2)]");
  t.equal(render('{% set ns = namespace(n=1) %}{% set ns.n = ns.n + 1 %}{{ ns.n }}'), '2');
  t.equal(render('{% for i in [1, 2] %}{{ loop.index }}{{ loop.cycle("a", "b") }}{% endfor %}'), '1a2b');
  t.equal(render("{{ d.constructor }} {{ d['toString'] }}", { d: { constructor: 'own key', toString: 'also data' } }), 'own key also data');
  t.equal(render("{{ [1, 2, 3][-1] }} {{ 'abc'[1] }} {{ (1, 2)[0] }}"), '3 b 1');
});

t.test('work without a loop still meets the render deadline or a size limit', async (t) => {
  setRenderTimeout(0.3);
  t.teardown(() => setRenderTimeout(30));
  const fail = (text: string) => {
    const r = renderTemplateString(text, { name: 'slow.sls' });
    return r.ok ? `OK ${r.text.length}` : `${r.error.code ?? ''} ${r.error.message}`;
  };
  // 2^40 macro calls, no for loop anywhere: only the call path can see the deadline
  t.match(fail('{% macro f(n) %}{% if n > 0 %}{{ f(n - 1) }}{{ f(n - 1) }}{% endif %}{% endmacro %}{{ f(40) }}'), /render_timeout/);
  t.match(fail('{% set x = [1] * 10**8 %}{{ x | length }}'), /OverflowError/);
  t.match(fail("{% set x = 'ab' * 10**8 %}{{ x | length }}"), /OverflowError/);
  t.equal(fail("{{ ('ab' * 1000) | length }}"), 'OK 4');
});
