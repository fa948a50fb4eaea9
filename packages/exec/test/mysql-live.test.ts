import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';
import t from 'tap';
import { startMariadb } from '../../../test/support/mariadb.js';
import {
  dbCreate,
  dbExists,
  dbGet,
  dbRemove,
  grantAdd,
  grantExists,
  grantRevoke,
  MysqlClient,
  pluginActive,
  revokeGrantsOn,
  userChpass,
  userCreate,
  userExists,
  userGrants,
  userRemove,
} from '../src/index.js';

/**
 * The mysql functions against a real MariaDB (Debian's mariadb-server, as scripts/test-deps.sh
 * installs it) with names and passwords that hold SQL's own characters: each must reach the
 * server as one name or one value. The server runs in a temp dir, on a socket there only.
 */

const root = mkdtempSync(join(tmpdir(), 'brine-mysql-live-'));
const stop = await startMariadb(root);
t.teardown(async () => {
  await stop();
  rmSync(root, { recursive: true, force: true });
});

const socket = join(root, 'mysqld.sock');
const client = () => new MysqlClient({ connection_unix_socket: socket, connection_user: 'root' });

const HOSTILE_DBS = ["we`ird'_%\\db", 'two\nlines', 'q?x', '50%', 'semi; DROP DATABASE mysql; --', '`', "'"];

t.test('databases with hostile names: created, found, read, removed', async (t) => {
  const m = client();
  for (const name of HOSTILE_DBS) {
    t.equal(await dbCreate(m, name, 'latin1', 'latin1_swedish_ci'), true, `create ${JSON.stringify(name)}`);
    t.equal(await dbExists(m, name), true);
    t.same(await dbGet(m, name), { character_set: 'latin1', collate: 'latin1_swedish_ci' });
    t.equal(await dbCreate(m, name), false, 'already there');
  }
  t.equal(await dbExists(m, 'mysql'), true);
  t.equal(m.error, null);
  for (const name of HOSTILE_DBS) {
    t.equal(await dbRemove(m, name), true, `remove ${JSON.stringify(name)}`);
    t.equal(await dbExists(m, name), false);
  }
  t.equal(await dbRemove(m, 'mysql'), false, 'the grant tables stay');
  t.equal(await dbExists(m, 'mysql'), true);
});

t.test('a name with _ or % is not a pattern when looked up', async (t) => {
  const m = client();
  t.equal(await dbCreate(m, 'aXb'), true);
  t.equal(await dbExists(m, 'a_b'), false);
  t.equal(await dbExists(m, 'a%'), false);
  t.same(await dbGet(m, 'a_b'), {});
  t.equal(await dbRemove(m, 'aXb'), true);
});

t.test('accounts with hostile names and passwords', async (t) => {
  const m = client();
  const user = "o'b`r\n%_?\\";
  const password = 'p\'a"s?s\\w%rd';
  t.equal(await userCreate(m, user, 'localhost', { password }), true);
  t.equal(await userExists(m, user, 'localhost'), true);
  t.equal(await userExists(m, user, 'localhost', { password }), true);
  t.equal(await userExists(m, user, 'localhost', { password: 'other' }), false);
  t.equal(await userExists(m, 'o_b', 'localhost'), false);
  t.equal(await userChpass(m, user, 'localhost', { password: 'second?' }), true);
  t.equal(await userExists(m, user, 'localhost', { password: 'second?' }), true);
  t.equal(await userExists(m, user, 'localhost', { password }), false);

  const conn = await createConnection({ socketPath: socket, user, password: 'second?' });
  await conn.end();

  t.equal(await userCreate(m, 'hashed', '%', { passwordHash: '*6C8989366EAF75BB670AD8EA7A7FC1176A95CEF4' }), true);
  t.equal(await userExists(m, 'hashed', '%', { passwordHash: '*6C8989366EAF75BB670AD8EA7A7FC1176A95CEF4' }), true);
  t.equal(await userExists(m, 'hashed', '%', { password: 'mypass' }), true, 'the hash is of "mypass"');
  t.equal(await userExists(m, 'hashed', '%', { password: 'other' }), false);
  t.equal(await userCreate(m, 'nopass', 'localhost', { allowPasswordless: true }), true);
  t.equal(await userExists(m, 'nopass', 'localhost', { passwordless: true }), true);
  t.equal(await pluginActive(m, 'unix_socket'), true);
  t.equal(await pluginActive(m, 'no_such_plugin'), false);
  t.equal(await userCreate(m, 'sock', '%', { unixSocket: true }), false, 'socket sign-in is for localhost');
  t.equal(await userCreate(m, 'sock', 'localhost', { unixSocket: true }), true);
  t.equal(await userExists(m, 'sock', 'localhost', { passwordless: true, unixSocket: true }), true);
  t.equal(await userExists(m, 'nopass', 'localhost', { passwordless: true, unixSocket: true }), false);

  for (const [u, h] of [
    [user, 'localhost'],
    ['hashed', '%'],
    ['nopass', 'localhost'],
    ['sock', 'localhost'],
  ] as const) {
    t.equal(await userRemove(m, u, h), true);
    t.equal(await userExists(m, u, h), false);
  }
  t.equal(await userRemove(m, user, 'localhost'), false);
  t.equal(m.error, `User '${user}'@'localhost' does not exists`);
});

t.test('grants on hostile names: added, seen, revoked', async (t) => {
  const m = client();
  const db = "g`r'a_n%t\\s";
  const user = "gr'ant`ee";
  t.equal(await dbCreate(m, db), true);
  t.equal(await userCreate(m, user, 'localhost', { password: 'x' }), true);
  const conn = await createConnection({ socketPath: socket, user: 'root' });
  await conn.query(`CREATE TABLE \`${db.replaceAll('`', '``')}\`.\`t?\` (a INT, \`b c\` INT)`);
  await conn.end();

  const on = (grant: string, database = `${db}.*`, extra = {}) => ({ grant, database, user, host: 'localhost', ...extra });
  t.equal(await grantExists(m, on('select')), false);
  t.equal(await grantAdd(m, on('select, insert')), true);
  t.equal(await grantExists(m, on('SELECT,INSERT')), true);
  t.equal(await grantExists(m, on('insert')), true);
  t.equal(await grantExists(m, on('update')), false);
  t.equal(await grantExists(m, on('select, update')), false, 'all of them, not some');
  t.equal(await grantExists(m, on('select', `${db.replace('_', 'X')}.*`)), false, 'the db name is not a pattern');
  t.equal(await grantAdd(m, on('select (a, `b c`)', `${db}.t?`)), true, 'column privileges on a table');
  t.equal(await grantExists(m, on('select (`b c`)', `${db}.t?`)), true);
  t.equal(await grantExists(m, on('select', `${db}.t?`)), false);
  t.equal(await grantAdd(m, on('all privileges', `${db}.t?`, { grantOption: true })), true);
  t.equal(await grantExists(m, on('delete', `${db}.t?`, { grantOption: true })), true);

  const lines = await userGrants(m, user, 'localhost');
  t.ok(Array.isArray(lines) && lines.length === 3, 'usage, the db and the table');
  t.notOk(Array.isArray(lines) && lines.some((l) => l.includes('IDENTIFIED BY')), 'no password hash shown');

  t.equal(await grantRevoke(m, on('insert')), true);
  t.equal(await grantExists(m, on('insert')), false);
  t.equal(await grantExists(m, on('select')), true);
  t.equal(await revokeGrantsOn(m, { database: `${db}.t?`, user, host: 'localhost' }), true);
  t.equal(await grantExists(m, on('select (a)', `${db}.t?`)), false);
  t.equal(await grantExists(m, on('select')), true, 'another level is left as it is');

  t.equal(await grantAdd(m, on('fly')), false);
  t.equal(m.error, null, 'an unknown privilege is refused before the server is asked');
  t.equal(await grantAdd(m, { ...on('select'), user: 'nobody' }), false);
  t.match(m.error, /^MySQL Error 1133: /);
  t.equal(await userRemove(m, user, 'localhost'), true);
  t.equal(await dbRemove(m, db), true);
});

t.test('an unreachable server: the error as Salt words it', async (t) => {
  const m = new MysqlClient({ connection_unix_socket: join(root, 'no-such.sock'), connection_user: 'root' });
  t.same(await dbGet(m, 'x'), []);
  t.equal(m.error, `MySQL Error 2002: Can't connect to local server through socket '${join(root, 'no-such.sock')}' (2)`);
  t.equal(await m.version(), '');
});
