import { readFileSync, statSync } from 'node:fs';
import type pg from 'pg';
import { isDict, type Pillar } from '@brine/core';
import { masterErrors } from '../errors.js';
import { ExtPillarFailure } from './ext-source.js';
import { rowsToPillar, type SqlQuery, type SqlRows } from './sql-rows.js';
import { lazyPool, type SqlPillarDb } from './lazy-pool.js';

/** The master config's `postgres:` keys (Salt's names), with the password in a file. */
export interface PgPillarConnection {
  host: string;
  port: number;
  user: string;
  db: string;
  passFile?: string;
}

const pgFail = (detail: string) => masterErrors.make('BRINE_ERR_MASTER_CONFIG', { file: '-', detail: `postgres: ${detail}` });
const fail = pgFail;

/**
 * `postgres: {host, port, user, db, pass_file}` with Salt's defaults (localhost:5432, user and db
 * `salt`). A `pass` in the config is refused: the password lives alone in `pass_file`, never in
 * the config (it gets copied and shown) and never in a URL.
 */
export function parsePgConnection(value: unknown): PgPillarConnection {
  const v = value ?? {};
  if (!isDict(v)) throw fail('expected a mapping of host, port, user, db, pass_file');
  if ('pass' in v) throw fail('a password in the config; remove `pass` and put the password alone in the file `pass_file` names (mode 0600)');
  for (const k of Object.keys(v))
    if (!['host', 'port', 'user', 'db', 'pass_file'].includes(k)) throw fail(`unknown key '${k}' (host, port, user, db, pass_file)`);
  return {
    host: String(v.host ?? 'localhost'),
    port: Number(v.port ?? 5432),
    user: String(v.user ?? 'salt'),
    db: String(v.db ?? 'salt'),
    ...(v.pass_file !== undefined && v.pass_file !== null ? { passFile: String(v.pass_file) } : {}),
  };
}

/** The password file's text; one others may write is refused (whoever writes it picks the database). */
export function readPassword(file: string, fail: (detail: string) => Error = pgFail): string {
  try {
    if ((statSync(file).mode & 0o002) !== 0) throw fail(`pass_file ${file} is writable by every user; make it owner-only: chmod 600 ${file}`);
    return readFileSync(file, 'utf8').replace(/\r?\n$/, '');
  } catch (e) {
    if ((e as { code?: string }).code === 'BRINE_ERR_MASTER_CONFIG') throw e;
    throw fail(`pass_file ${file}: ${(e as Error).message}`);
  }
}

/**
 * A query in Salt's (psycopg2's) form as a PostgreSQL statement: each `%s` is the minion id,
 * bound as parameter $1 (never spliced into the text), `%%` is a `%`.
 */
export function pgStatement(query: string): string {
  return query.replace(/%(.)/gs, (m, c: string) => {
    if (c === 's') return '$1';
    if (c === '%') return '%';
    throw fail(`query ${JSON.stringify(query.slice(0, 80))}: '${m}' is neither %s (the minion id) nor %%`);
  });
}

/** Values as pillar data: numbers that fit, booleans and JSON parsed, the rest as PostgreSQL's text. */
const TYPES = {
  getTypeParser(oid: number) {
    switch (oid) {
      case 16:
        return (v: string) => v === 't';
      case 20:
      case 21:
      case 23:
        return (v: string) => (Number.isSafeInteger(Number(v)) ? Number(v) : v);
      case 700:
      case 701:
        return (v: string) => Number(v);
      case 114:
      case 3802:
        return (v: string) => JSON.parse(v) as unknown;
      default:
        return (v: string) => v;
    }
  },
};

/** The connection as it may be logged and shown: no password. */
export function pgLocation(c: PgPillarConnection): string {
  return `${c.user}@${c.host}:${c.port}/${c.db}`;
}

/** One pool per master for every `postgres` entry; queries for a fleet share its few connections. */
export class PgPillar implements SqlPillarDb {
  private readonly pool = lazyPool(() => this.open());
  private readonly conn: PgPillarConnection;
  private readonly timeoutMs: number;
  readonly location: string;
  constructor(conn: PgPillarConnection, timeoutMs: number) {
    this.conn = conn;
    this.timeoutMs = timeoutMs;
    this.location = pgLocation(conn);
  }

  check(query: string): void {
    pgStatement(query);
  }

  private async open(): Promise<pg.Pool> {
    const { host, port, user, db } = this.conn;
    const password = this.conn.passFile ? readPassword(this.conn.passFile) : undefined;
    // pg is loaded only when a postgres pillar is asked: another master never pays for it
    const { Pool } = (await import('pg')).default;
    const pool = new Pool({
      host,
      port,
      user,
      database: db,
      ...(password !== undefined ? { password } : {}),
      max: 4,
      idleTimeoutMillis: 10_000,
      allowExitOnIdle: true,
      connectionTimeoutMillis: this.timeoutMs,
      statement_timeout: this.timeoutMs,
      query_timeout: this.timeoutMs,
    });
    // an idle connection the server drops must not crash the master
    pool.on('error', () => undefined);
    return pool;
  }

  /** The queries' rows for minion `id`, folded as sql_base folds them. */
  async fetch(id: string, queries: SqlQuery[]): Promise<Pillar> {
    const results: Array<{ q: SqlQuery; r: SqlRows }> = [];
    for (const q of queries) {
      const text = pgStatement(q.query);
      try {
        const res = await (await this.pool.get()).query({ text, values: text.includes('$1') ? [id] : [], rowMode: 'array', types: TYPES });
        results.push({ q, r: { fields: res.fields.map((f) => f.name), rows: res.rows as unknown[][] } });
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
