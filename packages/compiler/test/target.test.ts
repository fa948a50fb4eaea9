import t from 'tap';
import { matchTarget, checkTarget, expandNodegroup, targetEngines, type MinionFacts } from '../src/target.js';
import { globMatch } from '../src/glob.js';

const web1: MinionFacts = {
  id: 'web1.example.com',
  grains: {
    os: 'Ubuntu',
    os_family: 'Debian',
    roles: ['web', 'cache'],
    virtual: false,
    ipv4: ['127.0.0.1', '10.1.2.3'],
    ipv6: ['::1', 'fd00::5'],
    ec2: { tags: { env: 'prod' } },
    'odd:key': 'value',
  },
  pillar: { app: { tier: 'frontend' } },
};
const db1: MinionFacts = { id: 'db1', grains: { os: 'CentOS', roles: ['db'], ipv4: ['10.2.0.9'] } };

t.test('glob (fnmatch semantics)', async (t) => {
  t.ok(matchTarget('web*', 'glob', web1));
  t.ok(matchTarget('*', 'glob', db1));
  t.ok(matchTarget('db[0-9]', 'glob', db1));
  t.notOk(matchTarget('db[!1]', 'glob', db1));
  t.ok(matchTarget('web?.example.com', 'glob', web1));
  t.notOk(matchTarget('web1.example.co', 'glob', web1), 'anchored at both ends');
  t.notOk(matchTarget('WEB*', 'glob', web1), 'case sensitive like fnmatch on Linux');
  t.ok(globMatch('a.b', 'a.b'));
  t.notOk(globMatch('axb', 'a.b'), 'dots are literal');
});

t.test('pcre is anchored at the start only (re.match)', async (t) => {
  t.ok(matchTarget('web\\d', 'pcre', web1));
  t.notOk(matchTarget('\\d', 'pcre', web1));
  t.ok(matchTarget('(web|db)1', 'pcre', db1));
  t.throws(() => matchTarget('web(', 'pcre', web1), { code: 'BRINE_ERR_COMPILE_BAD_TARGET' });
});

t.test('list', async (t) => {
  t.ok(matchTarget('db1,web1.example.com', 'list', db1));
  t.ok(matchTarget(['x', 'db1'], 'list', db1));
  t.notOk(matchTarget('db', 'list', db1));
});

t.test('grain and grain_pcre walk nested data and lists', async (t) => {
  t.ok(matchTarget('os:Ubuntu', 'grain', web1));
  t.ok(matchTarget('os:Ub*', 'grain', web1));
  t.notOk(matchTarget('os:ubuntu', 'grain', web1), 'grain globs are case sensitive');
  t.ok(matchTarget('roles:cache', 'grain', web1), 'any list element');
  t.ok(matchTarget('ec2:tags:env:prod', 'grain', web1), 'nested dicts');
  t.ok(matchTarget('ec2:tags:env', 'grain', web1), 'a dict matches on its keys');
  t.ok(matchTarget('virtual:False', 'grain', web1), 'booleans print like Python');
  t.ok(matchTarget('odd:key:value', 'grain', web1), 'keys containing the delimiter');
  t.notOk(matchTarget('missing:x', 'grain', web1));
  t.ok(matchTarget('os:ubu.*', 'grain_pcre', web1), 'grain_pcre is case-insensitive like Salt');
  t.throws(() => matchTarget('os', 'grain', web1), { code: 'BRINE_ERR_COMPILE_BAD_TARGET' });
});

t.test('pillar targets', async (t) => {
  t.ok(matchTarget('app:tier:front*', 'pillar', web1));
  t.notOk(matchTarget('app:tier:front*', 'pillar', db1));
});

t.test('ipcidr', async (t) => {
  t.ok(matchTarget('10.1.0.0/16', 'ipcidr', web1));
  t.notOk(matchTarget('10.1.0.0/16', 'ipcidr', db1));
  t.ok(matchTarget('10.2.0.9', 'ipcidr', db1));
  t.ok(matchTarget('fd00::/8', 'ipcidr', web1));
  t.throws(() => matchTarget('10.0.0.0/40', 'ipcidr', web1), { code: 'BRINE_ERR_COMPILE_BAD_TARGET' });
  t.throws(() => matchTarget('nonsense', 'ipcidr', web1), { code: 'BRINE_ERR_COMPILE_BAD_TARGET' });
});

t.test('compound: and/or/not, parentheses, prefixes', async (t) => {
  t.ok(matchTarget('G@os:Ubuntu and web*', 'compound', web1));
  t.notOk(matchTarget('G@os:Ubuntu and web*', 'compound', db1));
  t.ok(matchTarget('G@os:Ubuntu or L@db1', 'compound', db1));
  t.ok(matchTarget('* and not G@os:Ubuntu', 'compound', db1));
  t.ok(matchTarget('* not G@os:Ubuntu', 'compound', db1), 'a bare not means and not');
  t.ok(matchTarget('( E@web\\d or E@db\\d ) and S@10.0.0.0/8', 'compound', db1));
  t.ok(matchTarget('(E@web\\d or E@db\\d) and not I@app:tier:frontend', 'compound', db1));
  t.ok(matchTarget('E@(web|db)1 and P@os:(ubuntu|centos)', 'compound', db1), 'regex parentheses stay');
  t.notOk(matchTarget('not *', 'compound', db1));
  t.ok(matchTarget('a* or b* or db1', 'compound', db1), 'or chains');
  t.notOk(matchTarget('db1 and web1* or G@os:Windows', 'compound', db1), 'and binds tighter than or');
  t.notOk(matchTarget('X@foo', 'compound', db1), 'an unknown engine letter is part of a glob, as in Salt');
  t.ok(matchTarget('X@db1', 'compound', { ...db1, id: 'X@db1' }));
  t.ok(matchTarget('G|@os|CentOS and db*', 'compound', db1), 'G with its own delimiter');
  t.notOk(matchTarget('G|@os|Ubuntu and db*', 'compound', db1));
  for (const bad of ['G@os:Ubuntu and', '( web*', 'web* )', 'and web*', 'R@foo', 'web* db*', '']) {
    t.throws(() => matchTarget(bad, 'compound', db1), { code: 'BRINE_ERR_COMPILE_BAD_TARGET' }, bad);
  }
});

t.test('nodegroups, nested, with cycles reported', async (t) => {
  const nodegroups = {
    webs: 'web*',
    dbs: ['db1', 'db2'],
    all: 'N@webs or N@dbs',
    mixed: ['G@os:CentOS', 'and', 'N@dbs'],
    loop1: 'N@loop2',
    loop2: 'N@loop1 or web*',
  };
  t.ok(matchTarget('all', 'nodegroup', db1, { nodegroups }));
  t.ok(matchTarget('all', 'nodegroup', web1, { nodegroups }));
  t.ok(matchTarget('mixed', 'nodegroup', db1, { nodegroups }));
  t.notOk(matchTarget('mixed', 'nodegroup', web1, { nodegroups }));
  t.ok(matchTarget('N@dbs and G@os:CentOS', 'compound', db1, { nodegroups }));
  t.equal(expandNodegroup('dbs', { nodegroups }), 'L@db1,db2');
  t.throws(() => matchTarget('loop1', 'nodegroup', db1, { nodegroups }), /cycle: loop1 -> loop2 -> loop1/);
  t.throws(() => matchTarget('nope', 'nodegroup', db1, { nodegroups }), /no nodegroup named 'nope'/);
});

t.test('checkTarget reports syntax errors without a minion', async (t) => {
  t.same(checkTarget('G@os:Ubuntu and web*', 'compound'), []);
  const d = checkTarget('G@os:Ubuntu and', 'compound');
  t.equal(d.length, 1);
  t.equal(d[0]!.code, 'BRINE_ERR_COMPILE_BAD_TARGET');
});

t.test('targetEngines: what each term of a target reads, compounds parsed and nodegroups expanded', async (t) => {
  const nodegroups = { web: 'web*', db: ['G@role:db', 'and', 'E@db\\d'], both: 'N@web or N@db' };
  const engines = (tgt: string | string[], type: Parameters<typeof targetEngines>[1]) => targetEngines(tgt, type, { nodegroups });
  t.same(engines('web*', 'glob'), [{ type: 'glob', term: 'web*' }]);
  t.same(engines('G|@role|db and not (S@10.0.0.0/8 or L@a,b)', 'compound'), [
    { type: 'grain', term: 'role|db' },
    { type: 'ipcidr', term: '10.0.0.0/8' },
    { type: 'list', term: 'a,b' },
  ]);
  t.same(
    engines('both', 'nodegroup').map((e) => [e.type, e.via]),
    [
      ['glob', 'both'],
      ['grain', 'both'],
      ['pcre', 'both'],
    ],
  );
  t.same(
    engines('x* or N@db', 'compound').map((e) => [e.type, e.via]),
    [
      ['glob', undefined],
      ['grain', 'db'],
      ['pcre', 'db'],
    ],
  );
  t.same(engines(['a', 'b'], 'list'), [{ type: 'list', term: 'a,b' }]);
  t.throws(() => engines('a and', 'compound'), { code: 'BRINE_ERR_COMPILE_BAD_TARGET' });
  t.throws(() => engines('nope', 'nodegroup'), { code: 'BRINE_ERR_COMPILE_BAD_TARGET' });
});

t.test('regex targets run in linear time: a backtracking pattern over a long value answers', async (t) => {
  // `^(a+)+$` takes exponential time on a backtracking engine: 35 a's and a '!' never finish
  const long: MinionFacts = { id: 'a'.repeat(35) + '!', grains: { fqdn: 'a'.repeat(35) + '!' }, pillar: { name: 'a'.repeat(35) + '!' } };
  t.notOk(matchTarget('^(a+)+$', 'pcre', long));
  t.notOk(matchTarget('fqdn:^(a+)+$', 'grain_pcre', long));
  t.notOk(matchTarget('name:^(a+)+$', 'pillar_pcre', long));
  t.notOk(matchTarget('E@^(a+)+$ or P@fqdn:^(a+)+$ or J@name:(a|aa)+$', 'compound', long));
  t.ok(matchTarget('^(a+)+!$', 'pcre', long));
  t.ok(matchTarget('(?P<name>web)\\d', 'pcre', web1), "Python's named groups");
});

t.test('patterns a linear-time engine cannot run are refused, naming the pattern and why', async (t) => {
  for (const p of ['(web)\\1', 'web(?=1)', 'web(?!2)', '(?<=w)eb']) {
    t.throws(() => matchTarget(p, 'pcre', web1), { code: 'BRINE_ERR_COMPILE_BAD_TARGET', message: /backreferences|lookaround/ }, p);
    t.match(checkTarget(`E@${p}`, 'compound'), [{ code: 'BRINE_ERR_COMPILE_BAD_TARGET', message: p }], `${p} in a compound`);
  }
  t.throws(() => matchTarget('os:(ubuntu', 'grain_pcre', web1), { code: 'BRINE_ERR_COMPILE_BAD_TARGET', message: /invalid regular expression/ });
});
