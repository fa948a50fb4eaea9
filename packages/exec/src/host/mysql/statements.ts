import { privilegesSql, type Privilege } from './privileges.js';
import { account, join, quoteName, statement, type Statement } from './sql.js';

/**
 * The statements the mysql functions send, each from the MySQL/MariaDB manual's syntax for it.
 * Names are quoted into the text; every other input is a bound value.
 */

// --- databases (CREATE DATABASE, ALTER DATABASE, DROP DATABASE, INFORMATION_SCHEMA.SCHEMATA)

export function schemaDefaults(name: string): Statement {
  return statement('SELECT DEFAULT_CHARACTER_SET_NAME, DEFAULT_COLLATION_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?', name);
}

/** ` CHARACTER SET ? COLLATE ?` for what is given (the manual allows a quoted charset or collation name). */
function charsetOptions(characterSet?: string, collate?: string): Statement {
  return join(characterSet === undefined ? '' : statement('CHARACTER SET ?', characterSet), collate === undefined ? '' : statement('COLLATE ?', collate));
}

export function createDatabase(name: string, characterSet?: string, collate?: string): Statement {
  return join(`CREATE DATABASE ${quoteName(name)}`, charsetOptions(characterSet, collate));
}

export function alterDatabase(name: string, characterSet?: string, collate?: string): Statement {
  return join(`ALTER DATABASE ${quoteName(name)}`, charsetOptions(characterSet, collate));
}

export function dropDatabase(name: string): Statement {
  return statement(`DROP DATABASE ${quoteName(name)}`);
}

// --- accounts (mysql.user, CREATE USER, ALTER USER, SET PASSWORD, DROP USER)

/** What an account row must also match: nothing more, an empty password, a plugin, a password or its hash. */
export type AccountCheck =
  | { kind: 'any' }
  | { kind: 'no-password'; column: string }
  | { kind: 'plugin'; plugin: string }
  | { kind: 'password'; column: string; password: string }
  | { kind: 'hash'; column: string; hash: string };

function accountCheck(check: AccountCheck): Statement | string {
  switch (check.kind) {
    case 'any':
      return '';
    case 'no-password':
      return `AND ${quoteName(check.column)} = ''`;
    case 'plugin':
      return statement('AND plugin = ?', check.plugin);
    case 'password':
      // PASSWORD() hashes as the server stores it (MariaDB; MySQL before 8.0)
      return statement(`AND ${quoteName(check.column)} = PASSWORD(?)`, check.password);
    case 'hash':
      return statement(`AND ${quoteName(check.column)} = ?`, check.hash);
  }
}

export function accountRow(user: string, host: string, check: AccountCheck = { kind: 'any' }): Statement {
  return join(statement('SELECT User, Host FROM mysql.user WHERE User = ? AND Host = ?', user, host), accountCheck(check));
}

export function accountPlugin(user: string, host: string): Statement {
  return statement('SELECT plugin FROM mysql.user WHERE User = ? AND Host = ?', user, host);
}

export function pluginStatus(name: string): Statement {
  return statement('SELECT PLUGIN_STATUS AS status FROM information_schema.PLUGINS WHERE PLUGIN_NAME = ?', name);
}

/** How an account authenticates: a password, a stored hash, the OS account (socket), or nothing. */
export type Credential = { password: string } | { hash: string } | { socket: true } | { none: true };

export interface Server {
  mariadb: boolean;
}

/** The socket plugin's name: `unix_socket` on MariaDB, `auth_socket` on MySQL. */
const socketPlugin = (server: Server) => (server.mariadb ? 'VIA unix_socket' : 'WITH auth_socket');

function identifiedBy(cred: Credential, server: Server): Statement | string {
  if ('password' in cred) return statement('IDENTIFIED BY ?', cred.password);
  if ('hash' in cred) return statement('IDENTIFIED BY PASSWORD ?', cred.hash);
  if ('socket' in cred) return `IDENTIFIED ${socketPlugin(server)}`;
  return '';
}

export function createUser(user: string, host: string, cred: Credential, server: Server): Statement {
  return join('CREATE USER', account(user, host), identifiedBy(cred, server));
}

export function dropUser(user: string, host: string): Statement {
  return join('DROP USER', account(user, host));
}

/** A new password for the account: a password, a hash, or none at all. */
export type NewSecret = { password: string } | { hash: string } | { empty: true };

/** MariaDB 10.4 on: ALTER USER ... IDENTIFIED VIA <plugin> USING <auth string>, keeping the account's plugin. */
export function alterUserSecret(user: string, host: string, secret: NewSecret, plugin: string): Statement {
  const using = 'password' in secret ? statement('USING PASSWORD(?)', secret.password) : 'hash' in secret ? statement('USING ?', secret.hash) : "USING ''";
  return join('ALTER USER', account(user, host), `IDENTIFIED VIA ${quoteName(plugin)}`, using);
}

/** MySQL 5.7.6 on: ALTER USER ... IDENTIFIED WITH <plugin> BY <password> | AS <hash>. */
export function alterUserWith(user: string, host: string, secret: NewSecret, plugin: string): Statement {
  const by = 'password' in secret ? statement('BY ?', secret.password) : 'hash' in secret ? statement('AS ?', secret.hash) : "BY ''";
  return join('ALTER USER', account(user, host), `IDENTIFIED WITH ${quoteName(plugin)}`, by);
}

/** Older servers: SET PASSWORD FOR ... = PASSWORD(<password>) | <hash>. */
export function setPassword(user: string, host: string, secret: NewSecret): Statement {
  const value = 'password' in secret ? statement('PASSWORD(?)', secret.password) : 'hash' in secret ? statement('?', secret.hash) : "''";
  return join('SET PASSWORD FOR', account(user, host), '=', value);
}

/** The account signs in as the OS user of the same name. */
export function alterUserSocket(user: string, host: string, server: Server): Statement {
  return join('ALTER USER', account(user, host), `IDENTIFIED ${socketPlugin(server)}`);
}

// --- privileges (SHOW GRANTS, GRANT, REVOKE)

export function showGrants(user: string, host: string): Statement {
  return join('SHOW GRANTS FOR', account(user, host));
}

/** A GRANT on a level (SQL text, see levelSql), the account and TLS values bound. */
export function grantStatement(
  privileges: Privilege[],
  level: string,
  user: string,
  host: string,
  extra: { require?: Statement; grantOption?: boolean } = {},
): Statement {
  return join(`GRANT ${privilegesSql(privileges)} ON ${level} TO`, account(user, host), extra.require ?? '', extra.grantOption ? 'WITH GRANT OPTION' : '');
}

/**
 * REVOKEs of the privileges: `ALL [PRIVILEGES]` stands alone in a privilege list (the manual's
 * grammar), so it gets a statement of its own, after one for the rest.
 */
export function revokeStatements(privileges: Privilege[], level: string, user: string, host: string): Statement[] {
  const all = privileges.filter((p) => p.name === 'ALL PRIVILEGES');
  const rest = privileges.filter((p) => p.name !== 'ALL PRIVILEGES');
  return [rest, all.slice(0, 1)].filter((list) => list.length).map((list) => join(`REVOKE ${privilegesSql(list)} ON ${level} FROM`, account(user, host)));
}

/** REQUIRE SSL | X509 | CIPHER ? AND ISSUER ? AND SUBJECT ? (what is empty is left out). */
export function requireClause(options: Array<{ option: 'SSL' | 'X509' } | { option: 'CIPHER' | 'ISSUER' | 'SUBJECT'; value: string }>): Statement {
  if (!options.length) return statement('');
  const parts = options.map((o) => ('value' in o ? statement(`${o.option} ?`, o.value) : statement(o.option)));
  return join('REQUIRE', ...parts.flatMap((p, i) => (i ? ['AND', p] : [p])));
}
