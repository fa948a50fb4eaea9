import t from 'tap';
import { GrantError, levelSql, parseShownGrant, parseWantedPrivileges, wantedLevel } from '../src/host/mysql/grant-text.js';
import { holds, privilegeKeys, privilegesSql } from '../src/host/mysql/privileges.js';
import { SqlTextError, tokenize } from '../src/host/mysql/sql-tokens.js';

/** Lines as MariaDB 10.11 and MySQL (5.7, 8.0) print them for SHOW GRANTS. */

t.test('tokenize: quoted names, string literals, words and marks', async (t) => {
  t.same(tokenize("GRANT SELECT ON `a``b`.* TO 'u\\'x'@'%'"), [
    { kind: 'word', text: 'GRANT' },
    { kind: 'word', text: 'SELECT' },
    { kind: 'word', text: 'ON' },
    { kind: 'name', text: 'a`b' },
    { kind: 'mark', text: '.' },
    { kind: 'mark', text: '*' },
    { kind: 'word', text: 'TO' },
    { kind: 'string', text: "u'x" },
    { kind: 'mark', text: '@' },
    { kind: 'string', text: '%' },
  ]);
  t.same(tokenize("'it''s' 'a\\nb' 'c\\\\d' 'e\\_f' \"q\""), [
    { kind: 'string', text: "it's" },
    { kind: 'string', text: 'a\nb' },
    { kind: 'string', text: 'c\\d' },
    { kind: 'string', text: 'e\\_f' },
    { kind: 'string', text: 'q' },
  ]);
  t.same(tokenize('`two\nlines`,`x`'), [
    { kind: 'name', text: 'two\nlines' },
    { kind: 'mark', text: ',' },
    { kind: 'name', text: 'x' },
  ]);
  t.same(tokenize('my\\_db.*'), [
    { kind: 'word', text: 'my\\_db' },
    { kind: 'mark', text: '.' },
    { kind: 'mark', text: '*' },
  ]);
  t.throws(() => tokenize('`open'), SqlTextError);
  t.throws(() => tokenize("'open"), SqlTextError);
});

t.test('parseShownGrant: privileges, level, account, grant option', async (t) => {
  t.same(parseShownGrant('GRANT SELECT, INSERT, UPDATE ON `appdb`.* TO `app`@`localhost`'), {
    privileges: [
      { name: 'SELECT', columns: [] },
      { name: 'INSERT', columns: [] },
      { name: 'UPDATE', columns: [] },
    ],
    level: { objectType: undefined, db: 'appdb', table: null },
    user: 'app',
    host: 'localhost',
    grantOption: false,
  });
  const all = parseShownGrant('GRANT ALL PRIVILEGES ON `latin\\_db`.* TO `app`@`localhost` WITH GRANT OPTION');
  t.same(all?.privileges, [{ name: 'ALL PRIVILEGES', columns: [] }]);
  t.same(all?.level, { objectType: undefined, db: 'latin\\_db', table: null });
  t.equal(all?.grantOption, true);
  const usage = parseShownGrant("GRANT USAGE ON *.* TO `app`@`localhost` IDENTIFIED BY PASSWORD '*B69027D44F6E5EDC07F1AEAD1477967B16F28227'");
  t.same(usage?.level, { objectType: undefined, db: null, table: null });
  t.equal(usage?.grantOption, false);
});

t.test('parseShownGrant: hostile names as the server prints them', async (t) => {
  const g = parseShownGrant("GRANT SELECT, INSERT (`b c`, `a`) ON `we``ird'_%\\\\db`.`t` TO `u'x`@`h%_`");
  t.same(g?.privileges, [
    { name: 'SELECT', columns: [] },
    { name: 'INSERT', columns: ['b c', 'a'] },
  ]);
  t.same(g?.level, { objectType: undefined, db: "we`ird'_%\\\\db", table: 't' });
  t.equal(g?.user, "u'x");
  t.equal(g?.host, 'h%_');
  const nl = parseShownGrant('GRANT SELECT ON `a\nb`.* TO `nl\nx`@`localhost`');
  t.equal(nl?.level.db, 'a\nb');
  t.equal(nl?.user, 'nl\nx');
});

t.test('parseShownGrant: MySQL 5.7 quoting, MySQL 8 dynamic privileges, routines', async (t) => {
  const old = parseShownGrant("GRANT SELECT ON `db`.* TO 'o\\'b'@'%' WITH GRANT OPTION");
  t.equal(old?.user, "o'b");
  t.equal(old?.host, '%');
  t.equal(old?.grantOption, true);
  const dyn = parseShownGrant('GRANT BACKUP_ADMIN,BINLOG_ADMIN ON *.* TO `root`@`localhost` WITH GRANT OPTION');
  t.same(
    dyn?.privileges.map((p) => p.name),
    ['BACKUP_ADMIN', 'BINLOG_ADMIN'],
  );
  const proc = parseShownGrant('GRANT EXECUTE ON PROCEDURE `db`.`p` TO `u`@`h`');
  t.same(proc?.level, { objectType: 'PROCEDURE', db: 'db', table: 'p' });
  t.equal(levelSql(proc!.level), 'PROCEDURE `db`.`p`');
  const table = parseShownGrant('GRANT SELECT ON `procedure`.`t` TO `u`@`h`');
  t.same(table?.level, { objectType: undefined, db: 'procedure', table: 't' }, 'a quoted db named like an object type is a db');
  t.equal(
    parseShownGrant("GRANT SELECT ON `db`.* TO `u`@`h` REQUIRE SUBJECT 'WITH GRANT OPTION'")?.grantOption,
    false,
    'the words inside a literal are not the clause',
  );
  t.equal(parseShownGrant('GRANT USAGE ON *.* TO `u`@`h` WITH MAX_QUERIES_PER_HOUR 10')?.grantOption, false, 'another WITH clause');
  t.equal(parseShownGrant('GRANT USAGE ON *.* TO `u`@`h` WITH GRANT OPTION MAX_QUERIES_PER_HOUR 10')?.grantOption, true);
});

t.test('parseShownGrant: lines not about a level', async (t) => {
  t.equal(parseShownGrant('GRANT `r1` TO `u`@`h`'), null, 'a role');
  t.equal(parseShownGrant('GRANT PROXY ON ``@`%` TO `root`@`localhost` WITH GRANT OPTION'), null, 'proxy');
  t.equal(parseShownGrant('REVOKE SELECT ON *.* FROM `u`@`h`'), null);
  t.equal(parseShownGrant('GRANT SELECT ON `unclosed TO `u`@`h`'), null);
  t.equal(parseShownGrant('GRANT SELECT ON *.* TO `u`'), null);
});

t.test('parseWantedPrivileges: what a state names', async (t) => {
  t.same(parseWantedPrivileges('select, insert, update'), [
    { name: 'SELECT', columns: [] },
    { name: 'INSERT', columns: [] },
    { name: 'UPDATE', columns: [] },
  ]);
  t.same(parseWantedPrivileges('SELECT,INSERT'), [
    { name: 'SELECT', columns: [] },
    { name: 'INSERT', columns: [] },
  ]);
  t.same(parseWantedPrivileges('all'), [{ name: 'ALL PRIVILEGES', columns: [] }]);
  t.same(parseWantedPrivileges('all   privileges'), [{ name: 'ALL PRIVILEGES', columns: [] }]);
  t.same(parseWantedPrivileges('select (a, `b c`), replication client'), [
    { name: 'SELECT', columns: ['a', 'b c'] },
    { name: 'REPLICATION CLIENT', columns: [] },
  ]);
  t.throws(() => parseWantedPrivileges('fly'), GrantError);
  t.throws(() => parseWantedPrivileges('select, fly'), GrantError);
  t.throws(() => parseWantedPrivileges(''), GrantError);
  t.throws(() => parseWantedPrivileges('select;drop'), GrantError);
  t.throws(() => parseWantedPrivileges('select (a'), GrantError);
  t.throws(() => parseWantedPrivileges('select,'), GrantError);
});

t.test('privilegesSql: as GRANT takes them, columns quoted', async (t) => {
  t.equal(privilegesSql(parseWantedPrivileges('select, insert (a, `b``c`)')), 'SELECT, INSERT (`a`, `b``c`)');
});

t.test('wantedLevel: escaped parts are literal names, the db of db.* a literal pattern', async (t) => {
  t.equal(levelSql(wantedLevel('appdb.*', true)), '`appdb`.*');
  t.equal(levelSql(wantedLevel('latin_db.*', true)), '`latin\\_db`.*');
  t.equal(levelSql(wantedLevel('50%.*', true)), '`50\\%`.*');
  t.equal(levelSql(wantedLevel('my_db.my_table', true)), '`my_db`.`my_table`', 'no pattern at table level');
  t.equal(levelSql(wantedLevel('*.*', true)), '*.*');
  t.equal(levelSql(wantedLevel('a.b.c', true)), '`a.b`.`c`', 'the table is after the last dot');
  t.equal(levelSql(wantedLevel("we`ird'\n.*", true)), "`we``ird'\n`.*");
  t.equal(levelSql(wantedLevel('my\\_db.*', false)), '`my\\_db`.*', 'unescaped: the pattern as written');
  t.equal(levelSql(wantedLevel('`my_db`.`t`', false)), '`my_db`.`t`');
  t.equal(levelSql(wantedLevel('function.*', false)), '`function`.*', 'a bare db named like an object type is a db');
  t.throws(() => wantedLevel('db', false), GrantError);
  t.throws(() => wantedLevel('db.* ; DROP', false), GrantError);
});

t.test('holds: what a set of held privileges covers', async (t) => {
  const held = new Set(privilegeKeys(parseWantedPrivileges('SELECT, INSERT (a)')));
  const key = (g: string) => privilegeKeys(parseWantedPrivileges(g));
  t.ok(key('select').every((k) => holds(held, k)));
  t.ok(
    key('insert (A)').every((k) => holds(held, k)),
    'column names ignore case',
  );
  t.notOk(key('insert (b)').every((k) => holds(held, k)));
  t.notOk(
    key('insert').every((k) => holds(held, k)),
    'a column privilege is not the table privilege',
  );
  t.ok(
    key('select (x)').every((k) => holds(held, k)),
    'the table privilege holds its columns',
  );
  t.notOk(key('update').every((k) => holds(held, k)));

  const all = new Set(privilegeKeys([{ name: 'ALL PRIVILEGES', columns: [] }]));
  t.ok(holds(all, 'DELETE'), 'ALL PRIVILEGES holds each privilege');
  t.ok(holds(all, 'ALL PRIVILEGES'));
  t.notOk(holds(all, 'GRANT OPTION'), 'but not GRANT OPTION');
  t.notOk(holds(all, 'PROXY'));
});

t.test("privilegeKeys: MariaDB's renamed privileges match their old names", async (t) => {
  const shown = parseShownGrant('GRANT RELOAD, REPLICATION SLAVE, BINLOG MONITOR, SLAVE MONITOR ON *.* TO `u`@`h`')!;
  const held = new Set(privilegeKeys(shown.privileges));
  for (const g of ['replication client', 'replication replica', 'replica monitor', 'binlog monitor', 'reload'])
    t.ok(
      privilegeKeys(parseWantedPrivileges(g)).every((k) => holds(held, k)),
      g,
    );
});
