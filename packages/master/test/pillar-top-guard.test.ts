import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { FileRoots } from '../src/file-roots.js';
import { compilePillar } from '../src/pillar.js';

const nodegroups = { dbs: 'p*', ids: ['p1', 'p2'], nested: 'N@dbs or L@x', bygrain: 'G@role:db', mixed: 'p* and G@role:db' };

/** The classic pillar of a minion claiming `role: db`, from a pillar tree holding `files`. */
function pillarOf(t: { teardown(fn: () => void): void }, files: Record<string, string>) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-pillar-top-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const all: Record<string, string> = { 'secrets.sls': 'db_password: hunter2\n', ...files };
  for (const [rel, text] of Object.entries(all)) {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), text);
  }
  const snap = new FileRoots({ base: [dir] }).snapshot();
  const res = compilePillar(snap, { id: 'p1', grains: { id: 'p1', role: 'db', ipv4: ['10.0.0.5'] } }, { safeMatchersOnly: true, nodegroups });
  return { ...res, dir };
}

// Each of these gave a minion claiming `role: db` the db secrets past the text check.
const bypasses: Array<[string, Record<string, string>, string, RegExp]> = [
  ['a compound term with its own delimiter', { 'top.sls': "base:\n  'G|@role|db':\n    - secrets\n" }, 'top.sls:2', /G@ in a compound target/],
  ['a YAML escape in the match key', { 'top.sls': 'base:\n  \'role:db\':\n    - "m\\x61tch": grain\n    - secrets\n' }, 'top.sls:2', /match: grain/],
  ['a quoted match key', { 'top.sls': 'base:\n  \'role:db\':\n    - "match": grain\n    - secrets\n' }, 'top.sls:2', /match: grain/],
  ['match: with its value on the next line', { 'top.sls': "base:\n  'role:db':\n    - match:\n        grain\n    - secrets\n" }, 'top.sls:2', /match: grain/],
  [
    'a flow mapping, the last match item winning',
    { 'top.sls': "base: {'role:db': [{match: glob}, {'match': grain}, secrets]}\n" },
    'top.sls:1',
    /match: grain/,
  ],
  [
    'a Jinja import that reads grains',
    {
      'roles.jinja': "{% set role = grains['role'] %}\n",
      'top.sls': '{% from \'roles.jinja\' import role %}\nbase:\n  \'{{ "*" if role == "db" else "nobody" }}\':\n    - secrets\n',
    },
    'roles.jinja:1',
    /a template reading grains/,
  ],
  [
    'a tag over two lines',
    { 'top.sls': "{% if\n     grains['role'] == 'db' %}\nbase:\n  '*':\n    - secrets\n{% endif %}\n" },
    'top.sls:2',
    /a template reading grains/,
  ],
];

// More ways to the same: other minion-supplied matchers and template objects.
const unsafe: Array<[string, Record<string, string>, string, RegExp]> = [
  ['grain_pcre', { 'top.sls': "base:\n  'role:d.*':\n    - match: grain_pcre\n    - secrets\n" }, 'top.sls:2', /match: grain_pcre/],
  ['pillar', { 'top.sls': "base:\n  'role:db':\n    - match: pillar\n    - secrets\n" }, 'top.sls:2', /match: pillar/],
  ['an IP match', { 'top.sls': "base:\n  '10.0.0.0/8':\n    - match: ipcidr\n    - secrets\n" }, 'top.sls:2', /match: ipcidr/],
  ['S@ behind not', { 'top.sls': "base:\n  'p* and not S@192.168.0.0/16':\n    - secrets\n" }, 'top.sls:2', /S@ in a compound target/],
  ['J@ inside parentheses', { 'top.sls': "base:\n  '(p* or J@role:d.*)':\n    - secrets\n" }, 'top.sls:2', /J@ in a compound target/],
  ['a nodegroup of grains', { 'top.sls': 'base:\n  bygrain:\n    - match: nodegroup\n    - secrets\n' }, 'top.sls:2', /G@ in nodegroup bygrain/],
  ['N@ of a mixed nodegroup', { 'top.sls': "base:\n  'N@mixed':\n    - secrets\n" }, 'top.sls:2', /G@ in nodegroup mixed/],
  ["salt['grains.get']", { 'top.sls': 'base:\n  \'{{ salt["grains.get"]("role") }}*\':\n    - secrets\n' }, 'top.sls:2', /a template reading salt/],
  ['grains.get', { 'top.sls': "{% set r = grains.get('role') %}\nbase:\n  '*':\n    - secrets\n" }, 'top.sls:1', /a template reading grains/],
  ['pillar', { 'top.sls': "{% if pillar %}\nbase:\n  '*':\n    - secrets\n{% endif %}\n" }, 'top.sls:1', /a template reading pillar/],
  ['opts', { 'top.sls': "base:\n  '{{ opts.id }}':\n    - secrets\n" }, 'top.sls:2', /a template reading opts/],
  ['a loop over grains', { 'top.sls': "{% for k in grains %}{% endfor %}\nbase:\n  '*':\n    - secrets\n" }, 'top.sls:1', /a template reading grains/],
];

t.test('pillar_safe_matchers_only refuses top files that read what the minion asserts', async (t) => {
  for (const [name, files, where, what] of [...bypasses, ...unsafe]) {
    const res = pillarOf(t, files);
    const text = JSON.stringify(res);
    t.same(res.pillar, {}, `${name}: no pillar`);
    t.notMatch(text, 'hunter2', `${name}: no secret`);
    const d = res.diagnostics.find((x) => x.code === 'BRINE_ERR_MASTER_PILLAR_UNSAFE_MATCHER');
    t.ok(d, `${name}: refused with BRINE_ERR_MASTER_PILLAR_UNSAFE_MATCHER (${JSON.stringify(res.diagnostics)})`);
    t.match(d?.message, `${path.join(res.dir, where.split(':')[0]!)}:${where.split(':')[1]}:`, `${name}: names the file and line`);
    t.match(d?.message, what, name);
  }
});

// Each of these reads only the minion id, which the minion proved with its key.
const safe: Array<[string, Record<string, string>]> = [
  ['a glob', { 'top.sls': "base:\n  'p*':\n    - secrets\n" }],
  ['a glob with match: glob', { 'top.sls': 'base:\n  p1:\n    - match: glob\n    - secrets\n' }],
  ['a list', { 'top.sls': "base:\n  'p1,p2':\n    - match: list\n    - secrets\n" }],
  ['L@ and E@ in a compound', { 'top.sls': "base:\n  'L@p1,p2 and E@p\\d and not x*':\n    - secrets\n" }],
  ['a pcre on the id', { 'top.sls': "base:\n  'p\\d+':\n    - match: pcre\n    - secrets\n" }],
  ['a nodegroup of globs', { 'top.sls': 'base:\n  dbs:\n    - match: nodegroup\n    - secrets\n' }],
  ['a nodegroup list of ids', { 'top.sls': 'base:\n  ids:\n    - match: nodegroup\n    - secrets\n' }],
  ['N@ of a nested nodegroup', { 'top.sls': "base:\n  'N@nested':\n    - secrets\n" }],
  ['Jinja reading only constants', { 'top.sls': "base:\n{% for id in ['p1', 'p2'] %}\n  {{ id }}:\n    - secrets\n{% endfor %}\n" }],
  ['Jinja reading saltenv', { 'top.sls': "{{ saltenv }}:\n  'p*':\n    - secrets\n" }],
];

t.test('pillar_safe_matchers_only keeps top files that target by id', async (t) => {
  for (const [name, files] of safe) {
    const res = pillarOf(t, files);
    t.same(res.diagnostics, [], name);
    t.same(res.pillar, { db_password: 'hunter2' }, name);
  }
});
