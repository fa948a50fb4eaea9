import { MysqlError, type MysqlClient } from './client.js';

/**
 * Salt's mysql user_* functions, on MariaDB (Debian's server) and MySQL before 8.0: both still
 * have PASSWORD(), which Salt's password check relies on. MySQL 8's own path in Salt is not
 * followed here: a password check against it fails with a clear error instead.
 */

export interface UserAuth {
  password?: string;
  passwordHash?: string;
  passwordless?: boolean;
  unixSocket?: boolean;
  passwordColumn?: string;
  authPlugin?: string;
  allowPasswordless?: boolean;
}

async function guarded<T>(fallback: T, fn: () => Promise<T | null>): Promise<T> {
  try {
    const v = await fn();
    return v === null ? fallback : v;
  } catch (e) {
    if (e instanceof MysqlError) return fallback;
    throw e;
  }
}

function versionAtLeast(version: string, want: string): boolean {
  const a = version.split(/[.-]/).map((x) => parseInt(x, 10) || 0);
  const b = want.split('.').map(Number);
  for (let i = 0; i < b.length; i++) if ((a[i] ?? 0) !== b[i]) return (a[i] ?? 0) > b[i]!;
  return true;
}

/** The server's version, retrying with the user's own password as Salt does. */
async function serverVersion(m: MysqlClient, password?: string): Promise<string | null> {
  let v = await m.version();
  if (!v && password) {
    m.error = null;
    v = await m.version(password);
    if (!v) return null;
  }
  return v;
}

async function authPlugin(m: MysqlClient, user: string, host: string): Promise<string> {
  return guarded('mysql_native_password', () =>
    m.with(async (c) => {
      const { rows } = await m.run(c, 'SELECT plugin FROM mysql.user WHERE User=%(user)s and Host=%(host)s', { user, host });
      return rows.length ? String(rows[0]!.plugin ?? 'mysql_native_password') : 'mysql_native_password';
    }),
  );
}

export async function pluginActive(m: MysqlClient, name: string): Promise<boolean> {
  return guarded(false, () =>
    m.with(async (c) => {
      const { rows } = await m.run(c, 'SELECT PLUGIN_STATUS FROM INFORMATION_SCHEMA.PLUGINS WHERE PLUGIN_NAME=%(name)s', { name });
      return rows.length > 0 && String(Object.values(rows[0]!)[0]) === 'ACTIVE';
    }),
  );
}

export async function userExists(m: MysqlClient, user: string, host = 'localhost', auth: UserAuth = {}): Promise<boolean> {
  const version = await serverVersion(m, auth.password);
  if (version === null) return false;
  let conn = await m.connect();
  if (!conn && auth.password && m.error?.startsWith(`MySQL Error 1045: Access denied for user '${user}'@`)) {
    m.error = null;
    conn = await m.connect(auth.password);
  }
  if (!conn) return false;
  await conn.end().catch(() => undefined);
  const column = auth.passwordColumn ?? (await m.passwordColumn());
  await authPlugin(m, user, host);
  let qry = 'SELECT User,Host FROM mysql.user WHERE User = %(user)s AND Host = %(host)s';
  const args: Record<string, unknown> = { user, host };
  if (auth.passwordless) {
    if (auth.unixSocket) {
      qry += ' AND plugin=%(unix_socket)s';
      args.unix_socket = 'unix_socket';
    } else qry += ` AND ${column} = ''`;
  } else if (auth.password) {
    if (!version.includes('MariaDB') && versionAtLeast(version, '8.0.11')) {
      m.error = 'MySQL Error: checking a password needs PASSWORD(), which MySQL 8 removed (Brine supports MariaDB and MySQL before 8.0 here)';
      return false;
    }
    qry += ` AND ${column} = PASSWORD(%(password)s)`;
    args.password = String(auth.password);
  } else if (auth.passwordHash) {
    qry += ` AND ${column} = %(password)s`;
    args.password = auth.passwordHash;
  }
  return guarded(false, () => m.with(async (c) => (await m.run(c, qry, args)).count === 1));
}

export async function userCreate(m: MysqlClient, user: string, host = 'localhost', auth: UserAuth = {}): Promise<boolean> {
  const version = await serverVersion(m, auth.password);
  if (version === null) return false;
  if (await userExists(m, user, host)) return false;
  let qry = 'CREATE USER %(user)s@%(host)s';
  const args: Record<string, unknown> = { user, host };
  if (auth.unixSocket) {
    if (!(await pluginActive(m, 'unix_socket'))) {
      m.error = 'The unix_socket plugin is not enabled.';
      return false;
    }
    if (host !== 'localhost') return false;
    qry += version.includes('MariaDB') ? ' IDENTIFIED VIA unix_socket' : ' IDENTIFIED WITH auth_socket';
  } else if (!auth.allowPasswordless) {
    if (auth.password !== undefined) {
      qry += ' IDENTIFIED BY %(password)s';
      args.password = String(auth.password);
    } else if (auth.passwordHash !== undefined) {
      qry += ' IDENTIFIED BY PASSWORD %(password)s';
      args.password = auth.passwordHash;
    } else return false;
  }
  const ran = await guarded(false, () => m.with(async (c) => (await m.run(c, qry, args), true)));
  if (!ran) return false;
  return userExists(m, user, host, { password: auth.password, passwordHash: auth.passwordHash, passwordColumn: auth.passwordColumn });
}

export async function userChpass(m: MysqlClient, user: string, host = 'localhost', auth: UserAuth = {}): Promise<boolean> {
  const version = await serverVersion(m, auth.password);
  if (version === null) return false;
  if (!(await userExists(m, user, host))) return false;
  const column = auth.passwordColumn ?? (await m.passwordColumn());
  const plugin = await authPlugin(m, user, host);
  const args: Record<string, unknown> = { user, host };
  let passwordSql: string;
  if (auth.password !== undefined && auth.password !== null) {
    passwordSql = 'PASSWORD(%(password)s)';
    args.password = auth.password;
  } else if (auth.passwordHash !== undefined && auth.passwordHash !== null) {
    passwordSql = '%(password)s';
    args.password = auth.passwordHash;
  } else if (!auth.allowPasswordless) {
    return false;
  } else passwordSql = "''";
  let qry: string;
  if (version.includes('MariaDB') && versionAtLeast(version, '10.4')) {
    args.auth_plugin = auth.authPlugin ?? plugin;
    qry = `ALTER USER %(user)s@%(host)s IDENTIFIED VIA %(auth_plugin)s USING ${passwordSql}`;
  } else {
    qry = `UPDATE mysql.user SET ${column}=${passwordSql} WHERE User=%(user)s AND Host = %(host)s;`;
  }
  if (auth.allowPasswordless && auth.unixSocket && host === 'localhost') {
    if (!(await pluginActive(m, 'unix_socket'))) {
      m.error = 'The unix_socket plugin is not enabled.';
      return false;
    }
    args.unix_socket = 'unix_socket';
    qry = `UPDATE mysql.user SET ${column}=${passwordSql}, plugin=%(unix_socket)s WHERE User=%(user)s AND Host = %(host)s;`;
  }
  return guarded(false, () =>
    m.with(async (c) => {
      await m.run(c, qry, args);
      await m.run(c, 'FLUSH PRIVILEGES;');
      return true;
    }),
  );
}

export async function userRemove(m: MysqlClient, user: string, host = 'localhost'): Promise<boolean> {
  if (!(await userExists(m, user, host))) {
    m.error = `User '${user}'@'${host}' does not exists`;
    return false;
  }
  const ran = await guarded(false, () => m.with(async (c) => (await m.run(c, 'DROP USER %(user)s@%(host)s', { user, host }), true)));
  return ran && !(await userExists(m, user, host));
}
