import type mysql from 'mysql2/promise';
import { isDict, type Pillar } from '@brine/core';
import { masterErrors } from '../errors.js';
import { ExtPillarFailure } from './ext-source.js';
import { readPassword } from './postgres-pillar.js';
import { rowsToPillar, type SqlQuery, type SqlRows } from './sql-rows.js';
import { lazyPool, type SqlPillarDb } from './lazy-pool.js';

/** The master config's `mysql:` keys (Salt's names), the password in a file. */
export interface MysqlPillarConnection {
  host: string;
  port: number;
  user: string;
  db: string;
  passFile?: string;
  unixSocket?: string;
}

const fail = (detail: string) => masterErrors.make('BRINE_ERR_MASTER_CONFIG', { file: '-', detail: `mysql: ${detail}` });
const KEYS = ['host', 'port', 'user', 'db', 'pass_file', 'unix_socket'];

/**
 * `mysql: {host, port, user, db, pass_file, unix_socket}` with Salt's defaults (localhost:3306,
 * user and db `salt`). A `pass` in the config is refused, as for `postgres:`.
 */
export function parseMysqlConnection(value: unknown): MysqlPillarConnection {
  const v = value ?? {};
  if (!isDict(v)) throw fail(`expected a mapping of ${KEYS.join(', ')}`);
  if ('pass' in v) throw fail('a password in the config; remove `pass` and put the password alone in the file `pass_file` names (mode 0600)');
  for (const k of Object.keys(v)) if (!KEYS.includes(k)) throw fail(`unknown key '${k}' (${KEYS.join(', ')})`);
  const opt = (k: string) => (v[k] !== undefined && v[k] !== null ? String(v[k]) : undefined);
  return {
    host: opt('host') ?? 'localhost',
    port: Number(v.port ?? 3306),
    user: opt('user') ?? 'salt',
    db: opt('db') ?? 'salt',
    ...(opt('pass_file') !== undefined ? { passFile: opt('pass_file')! } : {}),
    ...(opt('unix_socket') !== undefined ? { unixSocket: opt('unix_socket')! } : {}),
  };
}

/** A query in Salt's (MySQLdb's) form: each `%s` is the minion id, bound as a `?` parameter; `%%` is a `%`. */
export function mysqlStatement(query: string): { sql: string; params: number } {
  let params = 0;
  const sql = query.replace(/%(.)/gs, (m, c: string) => {
    if (c === 's') {
      params++;
      return '?';
    }
    if (c === '%') return '%';
    throw fail(`query ${JSON.stringify(query.slice(0, 80))}: '${m}' is neither %s (the minion id) nor %%`);
  });
  return { sql, params };
}

export function mysqlLocation(c: MysqlPillarConnection): string {
  return `${c.user}@${c.unixSocket ?? `${c.host}:${c.port}`}/${c.db}`;
}

/** One pool per master for every `mysql` entry, as for PostgreSQL. */
export class MysqlPillar implements SqlPillarDb {
  private readonly pool = lazyPool(() => this.open());
  private readonly conn: MysqlPillarConnection;
  private readonly timeoutMs: number;
  readonly location: string;
  constructor(conn: MysqlPillarConnection, timeoutMs: number) {
    this.conn = conn;
    this.timeoutMs = timeoutMs;
    this.location = mysqlLocation(conn);
  }

  check(query: string): void {
    mysqlStatement(query);
  }

  private async open(): Promise<mysql.Pool> {
    const { host, port, user, db, unixSocket } = this.conn;
    const password = this.conn.passFile ? readPassword(this.conn.passFile, fail) : undefined;
    // mysql2 is loaded only when a mysql pillar is asked
    const { createPool } = (await import('mysql2/promise')).default;
    return createPool({
      ...(unixSocket ? { socketPath: unixSocket } : { host, port }),
      user,
      database: db,
      ...(password !== undefined ? { password } : {}),
      connectionLimit: 4,
      connectTimeout: this.timeoutMs,
      dateStrings: true,
      supportBigNumbers: true,
      multipleStatements: false,
    });
  }

  /** The queries' rows for minion `id`, folded as sql_base folds them. */
  async fetch(id: string, queries: SqlQuery[]): Promise<Pillar> {
    const results: Array<{ q: SqlQuery; r: SqlRows }> = [];
    for (const q of queries) {
      const { sql, params } = mysqlStatement(q.query);
      try {
        const pool = await this.pool.get();
        const [rows, fields] = await pool.query({ sql, values: new Array<string>(params).fill(id), rowsAsArray: true, timeout: this.timeoutMs });
        results.push({ q, r: { fields: fields.map((f) => f.name), rows: rows as unknown[][] } });
      } catch (e) {
        throw new ExtPillarFailure(`${this.location}: ${(e as Error).message}`);
      }
    }
    return rowsToPillar(results);
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
