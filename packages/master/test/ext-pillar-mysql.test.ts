import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createConnection } from 'mysql2/promise';
import t from 'tap';
import { pillarService, SQL_GOLDEN } from './helpers/sql-pillar.js';
import { startMariadb } from '../../../test/support/mariadb.js';

/**
 * The `mysql` ext_pillar on a real MariaDB: the same rows and queries as the PostgreSQL case fold
 * to the pillar Salt's sql_base made of them (golden/ext-pillar-sql, recorded with the Salt
 * oracle), the minion id is a bound parameter, and a wrong or world-writable password file fails
 * that source naming it, never showing the password.
 */
const GOLDEN = SQL_GOLDEN;
const service = pillarService;

t.test('mysql ext_pillar on a real MariaDB: Salt’s sql_base folding, the minion id a bound parameter', async (t) => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'brine-mysql-pillar-'));
  const stop = await startMariadb(root);
  t.teardown(async () => {
    await stop();
    rmSync(root, { recursive: true, force: true });
  });
  const socket = path.join(root, 'mysqld.sock');
  const admin = await createConnection({ socketPath: socket, user: 'root' });
  await admin.query('CREATE DATABASE pillar');
  await admin.query('CREATE TABLE pillar.hosts (minion text, app text, env text, setting text, value text, port integer)');
  await admin.query('INSERT INTO pillar.hosts VALUES ?', [GOLDEN.rows]);
  await admin.query("CREATE USER 'salt'@'localhost' IDENTIFIED BY 's3cret-pw'");
  await admin.query("GRANT SELECT ON pillar.* TO 'salt'@'localhost'");
  await admin.end();
  writeFileSync(path.join(root, 'pw'), 's3cret-pw\n', { mode: 0o600 });
  const mysql = { unix_socket: socket, user: 'salt', db: 'pillar', pass_file: path.join(root, 'pw') };
  const s = await service({ mysql, ext_pillar: [{ mysql: GOLDEN.queries.list }, { mysql: GOLDEN.queries.named }] });

  const p = await s.pillar('anchor', {});
  t.same(p.diagnostics, []);
  t.strictSame(p.pillar, GOLDEN.salt, 'as Salt folds the same rows');
  const evil = await s.pillar("anchor' OR 'x'='x", {});
  t.strictSame(evil.pillar, Object.fromEntries(Object.keys(GOLDEN.queries.named).map((k) => [k, {}])), 'a quote in the id matches no row');

  writeFileSync(path.join(root, 'wrong'), 'not-the-password\n', { mode: 0o600 });
  const bad = await service({ mysql: { ...mysql, pass_file: path.join(root, 'wrong') }, ext_pillar: [{ mysql: GOLDEN.queries.list }] });
  const failed = await bad.pillar('anchor', {});
  t.same(failed.pillar, {});
  t.match(failed.diagnostics[0], { code: 'BRINE_ERR_MASTER_EXT_PILLAR', message: `Failed to load ext_pillar:mysql salt@${socket}/pillar:` });
  t.match(failed.diagnostics[0]?.message, /Access denied/);
  t.notMatch(failed.diagnostics[0]?.message, /not-the-password/);
  chmodSync(path.join(root, 'wrong'), 0o666);
  const open = await service({ mysql: { ...mysql, pass_file: path.join(root, 'wrong') }, ext_pillar: [{ mysql: GOLDEN.queries.list }] });
  t.match((await open.pillar('anchor', {})).diagnostics[0]?.message, /writable by every user; make it owner-only/);
});
