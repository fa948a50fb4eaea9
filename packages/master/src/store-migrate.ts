import Database from 'better-sqlite3';
import pg from 'pg';
import { masterErrors } from './errors.js';
import { PgStore, pgSql, withPassword } from './store-pg.js';

/** The tables in the order their foreign keys need, with the columns both schemas share. */
const TABLES: Array<[string, string[]]> = [
  ['keys', ['minion', 'pub', 'fingerprint', 'state', 'created_at', 'updated_at']],
  ['minions', ['minion', 'grains', 'last_seen', 'first_seen']],
  ['jobs', ['jid', 'fun', 'args', 'target', 'tgt_type', 'user', 'batch', 'created_at', 'expected', 'highstate']],
  ['job_minions', ['jid', 'minion']],
  ['returns', ['jid', 'minion', 'fun', 'success', 'retcode', 'ret', 'started', 'finished', 'stored_at', 'summary']],
  [
    'state_results',
    ['jid', 'minion', 'run_num', 'tag', 'id', 'name', 'state', 'fun', 'sls', 'result', 'changed', 'changes', 'comment', 'start_time', 'duration', 'stored_at'],
  ],
  ['events', ['tag', 'data', 'created_at']],
  ['mine', ['minion', 'fun', 'value', 'pushed_at']],
  ['users', ['name', 'password', 'created_at', 'updated_at']],
  ['api_tokens', ['id', 'hash', 'username', 'eauth', 'groups', 'created_at', 'expires_at', 'revoked_at']],
];

const BATCH = 500;

/**
 * `brine store migrate`: copies a master's SQLite store into PostgreSQL, table by table in
 * batches, each batch one transaction. Rows already there are kept (ON CONFLICT DO NOTHING), so
 * an interrupted copy is simply run again; events have no natural key, so they are copied only
 * into a store that has none yet. Returns the rows copied per table.
 */
export async function migrateSqliteToPostgres(sqliteFile: string, url: string, password?: string): Promise<Record<string, { read: number; written: number }>> {
  let src: Database.Database;
  try {
    src = new Database(sqliteFile, { readonly: true, fileMustExist: true });
  } catch (err) {
    throw masterErrors.make('BRINE_ERR_MASTER_STORE_MIGRATE', { detail: `cannot open ${sqliteFile}: ${(err as Error).message}` });
  }
  // the schema steps first, so the target has every table
  await (await PgStore.open(url, password, 1)).close();
  const pool = new pg.Pool({ connectionString: withPassword(url, password), max: 1 });
  const out: Record<string, { read: number; written: number }> = {};
  try {
    const c = await pool.connect();
    // a socket reset while checked out is an 'error' event: without a listener it would crash
    // the command instead of failing the query in flight with a message
    c.on('error', () => undefined);
    try {
      const eventsThere = Number((await c.query('SELECT count(*) AS n FROM events')).rows[0].n);
      for (const [table, cols] of TABLES) {
        out[table] = { read: 0, written: 0 };
        if (table === 'events' && eventsThere > 0) continue;
        const quoted = cols.map((c) => (c === 'user' ? '"user"' : c)).join(', ');
        const rows = src
          .prepare(`SELECT ${cols.map((c) => (c === 'user' ? '"user"' : c)).join(', ')} FROM ${table}${table === 'events' ? ' ORDER BY seq' : ''}`)
          .raw()
          .iterate() as IterableIterator<unknown[]>;
        let batch: unknown[][] = [];
        const write = async () => {
          if (!batch.length) return;
          const values = batch.map(() => `(${cols.map(() => '?').join(', ')})`).join(', ');
          await c.query('BEGIN');
          const r = await c.query(pgSql(`INSERT INTO ${table} (${quoted}) VALUES ${values} ON CONFLICT DO NOTHING`), batch.flat());
          await c.query('COMMIT');
          out[table]!.written += r.rowCount ?? 0;
          batch = [];
        };
        for (const row of rows) {
          out[table]!.read++;
          batch.push(row);
          if (batch.length >= BATCH) await write();
        }
        await write();
      }
    } catch (err) {
      await c.query('ROLLBACK').catch(() => undefined);
      throw masterErrors.make('BRINE_ERR_MASTER_STORE_MIGRATE', { detail: (err as Error).message });
    } finally {
      c.release();
    }
  } finally {
    src.close();
    await pool.end();
  }
  return out;
}
