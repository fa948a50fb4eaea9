import type mysql from 'mysql2/promise';
import { resolveConnectArgs, type MysqlConnectArgs, type OptionLookup } from './connection-options.js';
import { statement, type Statement } from './sql.js';

export { readOptionFile, type MysqlConnectArgs, type OptionLookup } from './connection-options.js';

/**
 * One mysql call's way to the server: each operation opens a connection, runs its statements
 * in a Session and closes it. A failure is kept in `error`, worded as Salt's mysql module words
 * it ("MySQL Error <errno>: <message>"), for the states' comments.
 */

/** A statement the server refused, or a connection it did not take. */
export class MysqlError extends Error {
  override name = 'MysqlError';
}

type Row = Record<string, unknown>;

/** libmysqlclient's wording for a connection that never reached a server. */
function connectError(e: NodeJS.ErrnoException & { errno?: number; sqlMessage?: string }, args: MysqlConnectArgs): string {
  if (e.sqlMessage !== undefined && typeof e.errno === 'number') return `MySQL Error ${e.errno}: ${e.sqlMessage}`;
  if (args.socketPath) {
    const errno = e.code === 'ENOENT' ? 2 : e.code === 'ECONNREFUSED' ? 111 : 13;
    return `MySQL Error 2002: Can't connect to local server through socket '${args.socketPath}' (${errno})`;
  }
  // a peer that takes the connection and drops it before the server's greeting
  if (e.code === 'ECONNRESET' || e.code === 'PROTOCOL_CONNECTION_LOST')
    return "MySQL Error 2013: Lost connection to server at 'handshake: reading initial communication packet', system error: 104";
  return `MySQL Error 2002: Can't connect to server on '${args.host ?? 'localhost'}' (${e.code === 'ECONNREFUSED' ? 111 : 115})`;
}

export class MysqlClient {
  /** The last failure (Salt's `mysql.error`), read and cleared by the states. */
  error: string | null = null;
  private serverVersion?: string;
  private readonly kwargs: Record<string, unknown>;
  private readonly option: OptionLookup;

  constructor(kwargs: Record<string, unknown>, option: OptionLookup = async () => undefined) {
    this.kwargs = kwargs;
    this.option = option;
  }

  connectArgs(password?: string): Promise<MysqlConnectArgs> {
    return resolveConnectArgs(this.kwargs, this.option, password);
  }

  /** A connection, or null with the failure kept. */
  async connect(password?: string): Promise<mysql.Connection | null> {
    const args = await this.connectArgs(password);
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
   * Runs `work` on a fresh connection and closes it. When the connection is refused and
   * `ownPassword` is given (an account's own password, which the configured account may be),
   * it is tried once more with that. `failed` is the answer when either fails.
   */
  async session<T>(failed: T, work: (s: Session) => Promise<T>, ownPassword?: string): Promise<T> {
    let conn = await this.connect();
    if (!conn && ownPassword) {
      this.error = null;
      conn = await this.connect(ownPassword);
    }
    if (!conn) return failed;
    try {
      return await work(new Session(this, conn));
    } catch (e) {
      if (e instanceof MysqlError) return failed;
      throw e;
    } finally {
      await conn.end().catch(() => undefined);
    }
  }

  /** The server's version text, '' when it cannot be read. */
  async version(ownPassword?: string): Promise<string> {
    return this.session('', (s) => s.version(), ownPassword);
  }

  /** The version, read once per client (for Session.version). */
  async cachedVersion(read: () => Promise<string>): Promise<string> {
    this.serverVersion ??= await read();
    return this.serverVersion;
  }
}

/** Statements on one open connection; a refused one throws MysqlError and is kept on the client. */
export class Session {
  readonly client: MysqlClient;
  private readonly conn: mysql.Connection;
  private passwordColumnName?: string;

  constructor(client: MysqlClient, conn: mysql.Connection) {
    this.client = client;
    this.conn = conn;
  }

  private async query(stmt: Statement): Promise<unknown> {
    try {
      const [result] = await this.conn.query(stmt.sql, stmt.values);
      return result;
    } catch (e) {
      const err = e as { errno?: number; sqlMessage?: string; message: string };
      const text = `MySQL Error ${err.errno ?? 0}: ${err.sqlMessage ?? err.message}`;
      this.client.error = text;
      throw new MysqlError(text);
    }
  }

  async rows(stmt: Statement): Promise<Row[]> {
    const result = await this.query(stmt);
    return Array.isArray(result) ? (result as Row[]) : [];
  }

  /** Runs a statement that returns no rows. */
  async run(stmt: Statement): Promise<void> {
    await this.query(stmt);
  }

  version(): Promise<string> {
    return this.client.cachedVersion(async () => String((await this.rows(statement('SELECT VERSION() AS version')))[0]?.version ?? ''));
  }

  /** Where mysql.user keeps the password hash: `Password` (MariaDB, MySQL before 5.7), else `authentication_string`. */
  async passwordColumn(): Promise<string> {
    this.passwordColumnName ??= (
      await this.rows(
        statement(
          'SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND COLUMN_NAME = ?',
          'mysql',
          'user',
          'Password',
        ),
      )
    ).length
      ? 'Password'
      : 'authentication_string';
    return this.passwordColumnName;
  }
}

/** Whether a version text ("10.11.6-MariaDB-0+deb12u1", "8.0.36") is at least `want` ("10.4"). */
export function versionAtLeast(version: string, want: string): boolean {
  const have = version.split(/[.-]/).map((x) => parseInt(x, 10) || 0);
  const need = want.split('.').map(Number);
  for (let i = 0; i < need.length; i++) if ((have[i] ?? 0) !== need[i]) return (have[i] ?? 0) > need[i]!;
  return true;
}

export const isMariadb = (version: string) => version.includes('MariaDB');
