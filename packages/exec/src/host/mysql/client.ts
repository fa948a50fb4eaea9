import { existsSync, readFileSync } from 'node:fs';
import type mysql from 'mysql2/promise';

/**
 * How Salt's mysql module talks to a server: a new connection per call, built from the
 * `connection_*` arguments, falling back to the minion's `mysql.*` options (config.option:
 * opts, then pillar) unless a `connection_default_file` is given. The last error is kept, as
 * Salt keeps `mysql.error` in its context, for the states' comments.
 */

export type OptionLookup = (name: string) => Promise<unknown>;

export interface MysqlConnectArgs {
  host?: string;
  user?: string;
  password?: string;
  port?: number;
  database?: string;
  socketPath?: string;
  charset?: string;
}

/** Salt's OperationalError text: "MySQL Error <errno>: <message>". */
export class MysqlError extends Error {}

const CONNECTION_KEYS = ['host', 'user', 'pass', 'port', 'db', 'unix_socket', 'default_file', 'default_group', 'charset'] as const;

/** The [client] (or the named group's) settings of a my.cnf style file. */
function readDefaultFile(file: string, group = 'client'): Record<string, string> {
  const out: Record<string, string> = {};
  if (!existsSync(file)) return out;
  let section = '';
  for (const raw of readFileSync(file, 'utf8').split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#') || line.startsWith(';')) continue;
    const sec = /^\[(.+)\]$/.exec(line);
    if (sec) {
      section = sec[1]!.trim();
      continue;
    }
    if (section !== 'client' && section !== group) continue;
    const i = line.indexOf('=');
    const key = (i < 0 ? line : line.slice(0, i)).trim().replace(/-/g, '_');
    out[key] =
      i < 0
        ? ''
        : line
            .slice(i + 1)
            .trim()
            .replace(/^(['"])(.*)\1$/, '$2');
  }
  return out;
}

/** libmysqlclient's wording for a connection that never reached a server. */
function connectError(e: NodeJS.ErrnoException & { errno?: number; sqlMessage?: string }, args: MysqlConnectArgs): string {
  if (e.sqlMessage !== undefined && typeof e.errno === 'number') return `MySQL Error ${e.errno}: ${e.sqlMessage}`;
  if (args.socketPath)
    return `MySQL Error 2002: Can't connect to local server through socket '${args.socketPath}' (${e.code === 'ENOENT' ? 2 : e.code === 'ECONNREFUSED' ? 111 : 13})`;
  return `MySQL Error 2002: Can't connect to server on '${args.host ?? 'localhost'}' (${e.code === 'ECONNREFUSED' ? 111 : 115})`;
}

export class MysqlClient {
  /** The last error, as Salt's `mysql.error`. */
  error: string | null = null;
  private versionText?: string;
  private passwordCol?: string;

  private readonly kwargs: Record<string, unknown>;
  private readonly option: OptionLookup;
  constructor(kwargs: Record<string, unknown>, option: OptionLookup = async () => undefined) {
    this.kwargs = kwargs;
    this.option = option;
  }

  /** Salt's _connect arguments: connection_* first, then mysql.* options. */
  async connectArgs(overridePass?: string): Promise<MysqlConnectArgs> {
    const useOpts = !Object.hasOwn(this.kwargs, 'connection_default_file');
    const got: Record<string, unknown> = {};
    for (const key of CONNECTION_KEYS) {
      const v = this.kwargs[`connection_${key}`];
      if (v !== undefined) got[key] = v;
      else if (useOpts && key !== 'charset') {
        const o = await this.option(`mysql.${key}`);
        if (o !== undefined && o !== null) got[key] = o;
      }
    }
    if (overridePass !== undefined) got.pass = overridePass;
    const file = got.default_file ? readDefaultFile(String(got.default_file), got.default_group ? String(got.default_group) : undefined) : {};
    const pick = (k: string, f?: string) => (got[k] ? String(got[k]) : f !== undefined && file[f] ? file[f] : undefined);
    const host = pick('host', 'host');
    const socketPath = pick('unix_socket', 'socket') ?? (!host || host === 'localhost' ? '/run/mysqld/mysqld.sock' : undefined);
    const port = pick('port', 'port');
    return {
      host: socketPath ? undefined : host,
      socketPath,
      user: pick('user', 'user') ?? process.env.USER ?? 'root',
      password: pick('pass', 'password'),
      port: port ? Number(port) : undefined,
      database: pick('db', 'database'),
    };
  }

  /** A connection, or null with the error kept (Salt's _connect returning None). */
  async connect(overridePass?: string): Promise<mysql.Connection | null> {
    const args = await this.connectArgs(overridePass);
    // loaded on first use: mysql2 is ~90 modules, and every `brine local` would pay for them
    const { createConnection } = (await import('mysql2/promise')).default;
    try {
      return await createConnection({ ...args, connectTimeout: 10_000, multipleStatements: false, dateStrings: true, supportBigNumbers: true });
    } catch (e) {
      this.error = connectError(e as never, args);
      return null;
    }
  }

  /**
   * Runs one query with Salt's pyformat placeholders (`%(name)s`); rows for a SELECT, the
   * affected-row count otherwise. Throws MysqlError (Salt's OperationalError) and keeps it.
   */
  async run(conn: mysql.Connection, qry: string, args: Record<string, unknown> = {}): Promise<{ rows: Record<string, unknown>[]; count: number }> {
    const values: unknown[] = [];
    const sql = Object.keys(args).length
      ? qry.replace(/%\((\w+)\)s|%%/g, (m, name?: string) => {
          if (m === '%%') return '%';
          values.push(args[name!]);
          return '?';
        })
      : qry.replace(/%%/g, '%');
    try {
      const [result] = await conn.query(sql, values);
      if (Array.isArray(result)) return { rows: result as Record<string, unknown>[], count: result.length };
      return { rows: [], count: (result as { affectedRows?: number }).affectedRows ?? 0 };
    } catch (e) {
      const err = e as { errno?: number; sqlMessage?: string; message: string };
      const text = `MySQL Error ${err.errno ?? 0}: ${err.sqlMessage ?? err.message}`;
      this.error = text;
      throw new MysqlError(text);
    }
  }

  /** Connects, runs `fn`, closes; null when the connection failed. */
  async with<T>(fn: (conn: mysql.Connection) => Promise<T>, overridePass?: string): Promise<T | null> {
    const conn = await this.connect(overridePass);
    if (!conn) return null;
    try {
      return await fn(conn);
    } finally {
      await conn.end().catch(() => undefined);
    }
  }

  /** The server's version string ('' when it cannot be read). */
  async version(overridePass?: string): Promise<string> {
    if (this.versionText !== undefined) return this.versionText;
    try {
      const v = await this.with(async (c) => String(Object.values((await this.run(c, 'SELECT VERSION()')).rows[0] ?? {})[0] ?? ''), overridePass);
      if (v === null) return '';
      this.versionText = v;
      return v;
    } catch (e) {
      if (e instanceof MysqlError) return '';
      throw e;
    }
  }

  /** 'Password' where mysql.user has that column (MariaDB, MySQL < 5.7), else authentication_string. */
  async passwordColumn(): Promise<string> {
    if (this.passwordCol) return this.passwordCol;
    const n = await this.with(
      async (c) =>
        (
          await this.run(
            c,
            'SELECT column_name from information_schema.COLUMNS WHERE table_schema=%(schema)s and table_name=%(table)s and column_name=%(column)s',
            {
              schema: 'mysql',
              table: 'user',
              column: 'Password',
            },
          )
        ).count,
    );
    if (n === null) return 'Password';
    this.passwordCol = n > 0 ? 'Password' : 'authentication_string';
    return this.passwordCol;
  }
}

/** Salt's quote_identifier: backticks doubled; for GRANTs `_` and `%` escaped too. */
export function quoteIdentifier(id: string, forGrants = false): string {
  return forGrants ? '`' + id.replace(/`/g, '``').replace(/_/g, '\\_').replace(/%/g, '%%') + '`' : '`' + id.replace(/`/g, '``').replace(/%/g, '%%') + '`';
}
