import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { pillarService, SQL_GOLDEN } from './helpers/sql-pillar.js';
import { startPostgres } from '../../../test/support/postgres.js';

const GOLDEN = SQL_GOLDEN;
const service = pillarService;

const sqlText = (v: unknown) => (v === null ? 'NULL' : typeof v === 'number' ? String(v) : `'${String(v)}'`);

t.test('postgres ext_pillar on a real server: Salt’s sql_base folding, the minion id a bound parameter', async (t) => {
  const pg = await startPostgres();
  t.teardown(() => pg.stop());
  await pg.createDatabase('pillar');
  const values = GOLDEN.rows.map((r) => `(${r.map(sqlText).join(', ')})`).join(', ');
  await pg.psql(`CREATE TABLE hosts (minion text, app text, env text, setting text, value text, port integer); INSERT INTO hosts VALUES ${values};`, 'pillar');
  const postgres = { host: pg.host, port: pg.port, user: pg.user, db: 'pillar', pass_file: pg.passwordFile };
  const s = await service({ postgres, ext_pillar: [{ postgres: GOLDEN.queries.list }, { postgres: GOLDEN.queries.named }] });

  const p = await s.pillar('anchor', {});
  t.same(p.diagnostics, []);
  t.strictSame(p.pillar, GOLDEN.salt, 'as Salt folds the same rows');

  // the id is data, never SQL: a quote in it matches no row rather than every row
  const evil = await s.pillar("anchor' OR 'x'='x", {});
  t.same(evil.diagnostics, []);
  t.strictSame(evil.pillar, Object.fromEntries(Object.keys(GOLDEN.queries.named).map((k) => [k, {}])), 'each named query empty');

  const wrong = mkdtempSync(path.join(os.tmpdir(), 'brine-pgpw-'));
  t.teardown(() => rmSync(wrong, { recursive: true, force: true }));
  writeFileSync(path.join(wrong, 'pw'), 'not-the-password\n', { mode: 0o600 });
  const bad = await service({ postgres: { ...postgres, pass_file: path.join(wrong, 'pw') }, ext_pillar: [{ postgres: GOLDEN.queries.list }] });
  const failed = await bad.pillar('anchor', {});
  t.same(failed.pillar, {});
  t.equal(failed.diagnostics[0]?.code, 'BRINE_ERR_MASTER_EXT_PILLAR');
  t.match(failed.diagnostics[0]?.message, `Failed to load ext_pillar:postgres ${pg.user}@${pg.host}:${pg.port}/pillar:`);
  t.match(failed.diagnostics[0]?.message, /password authentication failed/);
  t.notMatch(failed.diagnostics[0]?.message, /not-the-password/);

  chmodSync(path.join(wrong, 'pw'), 0o666);
  const open = await service({ postgres: { ...postgres, pass_file: path.join(wrong, 'pw') }, ext_pillar: [{ postgres: GOLDEN.queries.list }] });
  t.match((await open.pillar('anchor', {})).diagnostics[0]?.message, /writable by every user; make it owner-only/);
});
