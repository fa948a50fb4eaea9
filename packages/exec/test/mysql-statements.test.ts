import { format } from 'mysql2';
import t from 'tap';
import { account, join, literalDbPattern, quoteName, statement, type Statement } from '../src/host/mysql/sql.js';
import {
  accountRow,
  alterDatabase,
  alterUserSecret,
  alterUserSocket,
  alterUserWith,
  createDatabase,
  createUser,
  dropDatabase,
  dropUser,
  grantStatement,
  requireClause,
  revokeStatements,
  schemaDefaults,
  setPassword,
  showGrants,
} from '../src/host/mysql/statements.js';

/** The text mysql2 sends for a statement (its client-side formatting of `?`). */
const sent = (s: Statement) => format(s.sql, s.values);

const mariadb = { mariadb: true };
const mysql = { mariadb: false };

t.test('quoteName: backticks, an inner backtick doubled, all else as it is', async (t) => {
  t.equal(quoteName('appdb'), '`appdb`');
  t.equal(quoteName('a`b'), '`a``b`');
  t.equal(quoteName('``'), '``````');
  t.equal(quoteName("it's"), "`it's`");
  t.equal(quoteName('50%_off'), '`50%_off`');
  t.equal(quoteName('two\nlines'), '`two\nlines`');
  t.equal(quoteName('back\\slash'), '`back\\slash`');
  t.equal(quoteName(''), '``');
});

t.test('literalDbPattern: GRANT wildcards and the escape character escaped', async (t) => {
  t.equal(literalDbPattern('latin_db'), 'latin\\_db');
  t.equal(literalDbPattern('100%'), '100\\%');
  t.equal(literalDbPattern('a\\b'), 'a\\\\b');
  t.equal(literalDbPattern("a\\_%`'\n"), "a\\\\\\_\\%`'\n");
  t.equal(literalDbPattern('plain'), 'plain');
});

t.test('account and join: values in order, one space between parts', async (t) => {
  t.same(account('u', 'h'), { sql: '?@?', values: ['u', 'h'] });
  t.same(join('A', statement('B ?', 1), '', statement('C ? ?', 2, 3)), { sql: 'A B ? C ? ?', values: [1, 2, 3] });
});

t.test('database statements', async (t) => {
  t.equal(sent(createDatabase('appdb')), 'CREATE DATABASE `appdb`');
  t.equal(sent(createDatabase('latin_db', 'latin1', 'latin1_swedish_ci')), "CREATE DATABASE `latin_db` CHARACTER SET 'latin1' COLLATE 'latin1_swedish_ci'");
  t.equal(sent(createDatabase('x', undefined, 'utf8mb4_bin')), "CREATE DATABASE `x` COLLATE 'utf8mb4_bin'");
  t.equal(sent(alterDatabase('x', 'utf8mb4')), "ALTER DATABASE `x` CHARACTER SET 'utf8mb4'");
  t.equal(sent(alterDatabase('x', 'utf8mb4', 'utf8mb4_general_ci')), "ALTER DATABASE `x` CHARACTER SET 'utf8mb4' COLLATE 'utf8mb4_general_ci'");
  t.equal(sent(dropDatabase('x')), 'DROP DATABASE `x`');
  t.equal(
    sent(schemaDefaults("a'b")),
    "SELECT DEFAULT_CHARACTER_SET_NAME, DEFAULT_COLLATION_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = 'a\\'b'",
  );
});

t.test('a hostile database name stays one quoted name, and the values after it stay in place', async (t) => {
  const hostile = "x` ; DROP DATABASE mysql; -- ?'%_\n#";
  t.equal(
    sent(createDatabase(hostile, 'latin1', 'latin1_bin')),
    "CREATE DATABASE `x`` ; DROP DATABASE mysql; -- ?'%_\n#` CHARACTER SET 'latin1' COLLATE 'latin1_bin'",
  );
  t.equal(sent(dropDatabase('a?b')), 'DROP DATABASE `a?b`');
  t.equal(sent(alterDatabase('?`?', '?')), "ALTER DATABASE `?``?` CHARACTER SET '?'");
});

t.test('account statements', async (t) => {
  t.equal(sent(accountRow('app', 'localhost')), "SELECT User, Host FROM mysql.user WHERE User = 'app' AND Host = 'localhost'");
  t.equal(
    sent(accountRow('app', '%', { kind: 'no-password', column: 'Password' })),
    "SELECT User, Host FROM mysql.user WHERE User = 'app' AND Host = '%' AND `Password` = ''",
  );
  t.equal(
    sent(accountRow('a', 'h', { kind: 'plugin', plugin: 'unix_socket' })),
    "SELECT User, Host FROM mysql.user WHERE User = 'a' AND Host = 'h' AND plugin = 'unix_socket'",
  );
  t.equal(
    sent(accountRow('a', 'h', { kind: 'password', column: 'authentication_string', password: "pa'ss" })),
    "SELECT User, Host FROM mysql.user WHERE User = 'a' AND Host = 'h' AND `authentication_string` = PASSWORD('pa\\'ss')",
  );
  t.equal(
    sent(accountRow('a', 'h', { kind: 'hash', column: 'Pass`word', hash: '*AB' })),
    "SELECT User, Host FROM mysql.user WHERE User = 'a' AND Host = 'h' AND `Pass``word` = '*AB'",
  );

  t.equal(sent(createUser('app', 'localhost', { password: 'first-secret' }, mariadb)), "CREATE USER 'app'@'localhost' IDENTIFIED BY 'first-secret'");
  t.equal(sent(createUser('h', '%', { hash: '*2470C0' }, mariadb)), "CREATE USER 'h'@'%' IDENTIFIED BY PASSWORD '*2470C0'");
  t.equal(sent(createUser('s', 'localhost', { socket: true }, mariadb)), "CREATE USER 's'@'localhost' IDENTIFIED VIA unix_socket");
  t.equal(sent(createUser('s', 'localhost', { socket: true }, mysql)), "CREATE USER 's'@'localhost' IDENTIFIED WITH auth_socket");
  t.equal(sent(createUser('n', 'localhost', { none: true }, mariadb)), "CREATE USER 'n'@'localhost'");
  t.equal(sent(dropUser('app', '%')), "DROP USER 'app'@'%'");
  t.equal(sent(showGrants('app', 'localhost')), "SHOW GRANTS FOR 'app'@'localhost'");
  t.equal(sent(alterUserSocket('s', 'localhost', mariadb)), "ALTER USER 's'@'localhost' IDENTIFIED VIA unix_socket");
  t.equal(sent(alterUserSocket('s', 'localhost', mysql)), "ALTER USER 's'@'localhost' IDENTIFIED WITH auth_socket");
});

t.test('password changes, by server', async (t) => {
  const pl = 'mysql_native_password';
  t.equal(sent(alterUserSecret('a', 'h', { password: 'p' }, pl)), "ALTER USER 'a'@'h' IDENTIFIED VIA `mysql_native_password` USING PASSWORD('p')");
  t.equal(sent(alterUserSecret('a', 'h', { hash: '*AB' }, pl)), "ALTER USER 'a'@'h' IDENTIFIED VIA `mysql_native_password` USING '*AB'");
  t.equal(sent(alterUserSecret('a', 'h', { empty: true }, pl)), "ALTER USER 'a'@'h' IDENTIFIED VIA `mysql_native_password` USING ''");
  t.equal(sent(alterUserWith('a', 'h', { password: 'p' }, 'caching_sha2_password')), "ALTER USER 'a'@'h' IDENTIFIED WITH `caching_sha2_password` BY 'p'");
  t.equal(sent(alterUserWith('a', 'h', { hash: '*AB' }, pl)), "ALTER USER 'a'@'h' IDENTIFIED WITH `mysql_native_password` AS '*AB'");
  t.equal(sent(alterUserWith('a', 'h', { empty: true }, pl)), "ALTER USER 'a'@'h' IDENTIFIED WITH `mysql_native_password` BY ''");
  t.equal(sent(setPassword('a', 'h', { password: 'p' })), "SET PASSWORD FOR 'a'@'h' = PASSWORD('p')");
  t.equal(sent(setPassword('a', 'h', { hash: '*AB' })), "SET PASSWORD FOR 'a'@'h' = '*AB'");
  t.equal(sent(setPassword('a', 'h', { empty: true })), "SET PASSWORD FOR 'a'@'h' = ''");
  t.equal(
    sent(alterUserSecret('a', 'h', { password: 'p' }, 'x` OR 1')),
    "ALTER USER 'a'@'h' IDENTIFIED VIA `x`` OR 1` USING PASSWORD('p')",
    'a plugin name is quoted',
  );
});

t.test('hostile account names and passwords are bound values', async (t) => {
  const user = "o'brien`?\n%_\\";
  t.equal(
    sent(createUser(user, "h'%", { password: "?'; DROP USER root --" }, mariadb)),
    "CREATE USER 'o\\'brien`?\\n%_\\\\'@'h\\'%' IDENTIFIED BY '?\\'; DROP USER root --'",
  );
  t.equal(sent(dropUser('?', '?')), "DROP USER '?'@'?'");
});

t.test('GRANT and REVOKE', async (t) => {
  const privs = (...names: string[]) => names.map((name) => ({ name, columns: [] as string[] }));
  t.equal(sent(grantStatement(privs('SELECT', 'INSERT'), '`appdb`.*', 'app', 'localhost')), "GRANT SELECT, INSERT ON `appdb`.* TO 'app'@'localhost'");
  t.equal(
    sent(grantStatement(privs('ALL PRIVILEGES'), '`latin\\_db`.*', 'app', 'localhost', { grantOption: true })),
    "GRANT ALL PRIVILEGES ON `latin\\_db`.* TO 'app'@'localhost' WITH GRANT OPTION",
  );
  t.equal(
    sent(grantStatement(privs('SELECT'), '*.*', 'a', 'h', { require: requireClause([{ option: 'SSL' }]), grantOption: true })),
    "GRANT SELECT ON *.* TO 'a'@'h' REQUIRE SSL WITH GRANT OPTION",
  );
  t.equal(sent(grantStatement([{ name: 'SELECT', columns: ['a', 'b`c'] }], '`d`.`t`', 'a', 'h')), "GRANT SELECT (`a`, `b``c`) ON `d`.`t` TO 'a'@'h'");
  t.equal(sent(grantStatement(privs('SELECT'), '`a?b`.`t?`', '?', '?')), "GRANT SELECT ON `a?b`.`t?` TO '?'@'?'", 'a ? in a quoted level is not a placeholder');
  t.same(revokeStatements(privs('INSERT'), '`appdb`.*', 'app', 'localhost').map(sent), ["REVOKE INSERT ON `appdb`.* FROM 'app'@'localhost'"]);
  t.same(revokeStatements(privs('SELECT', 'GRANT OPTION'), '`d`.*', 'a', 'h').map(sent), ["REVOKE SELECT, GRANT OPTION ON `d`.* FROM 'a'@'h'"]);
  t.same(
    revokeStatements(privs('ALL PRIVILEGES', 'GRANT OPTION'), '`d`.*', 'a', 'h').map(sent),
    ["REVOKE GRANT OPTION ON `d`.* FROM 'a'@'h'", "REVOKE ALL PRIVILEGES ON `d`.* FROM 'a'@'h'"],
    'ALL PRIVILEGES goes alone',
  );
  t.same(revokeStatements([], '*.*', 'a', 'h'), []);
});

t.test('REQUIRE options', async (t) => {
  t.equal(sent(requireClause([])), '');
  t.equal(sent(requireClause([{ option: 'X509' }])), 'REQUIRE X509');
  t.equal(
    sent(
      requireClause([
        { option: 'CIPHER', value: 'EDH-RSA' },
        { option: 'ISSUER', value: "/C=SE/O=it's" },
        { option: 'SUBJECT', value: '/CN=x' },
      ]),
    ),
    "REQUIRE CIPHER 'EDH-RSA' AND ISSUER '/C=SE/O=it\\'s' AND SUBJECT '/CN=x'",
  );
});
