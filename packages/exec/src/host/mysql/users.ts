import { isMariadb, versionAtLeast, type MysqlClient, type Session } from './client.js';
import {
  accountPlugin,
  accountRow,
  alterUserSecret,
  alterUserSocket,
  alterUserWith,
  createUser,
  dropUser,
  pluginStatus,
  setPassword,
  type AccountCheck,
  type Credential,
  type NewSecret,
  type Server,
} from './statements.js';
import type { Statement } from './sql.js';

/**
 * The mysql user_* functions. A password is checked against mysql.user with PASSWORD(), which
 * MariaDB and MySQL before 8.0 have; on MySQL 8 the check fails with an error saying so.
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

const NO_SOCKET_PLUGIN = 'The unix_socket plugin is not enabled.';
const NO_PASSWORD_FUNCTION = 'MySQL Error: checking a password needs PASSWORD(), which MySQL 8 removed (Brine supports MariaDB and MySQL before 8.0 here)';

async function server(s: Session): Promise<Server & { version: string }> {
  const version = await s.version();
  return { version, mariadb: isMariadb(version) };
}

/** What the account's row must match besides its name; null (with the error kept) when it cannot be checked. */
async function checkFor(s: Session, auth: UserAuth): Promise<AccountCheck | null> {
  const column = () => (auth.passwordColumn ? Promise.resolve(auth.passwordColumn) : s.passwordColumn());
  if (auth.passwordless) return auth.unixSocket ? { kind: 'plugin', plugin: 'unix_socket' } : { kind: 'no-password', column: await column() };
  if (auth.password) {
    const { version, mariadb } = await server(s);
    if (!mariadb && versionAtLeast(version, '8.0.11')) {
      s.client.error = NO_PASSWORD_FUNCTION;
      return null;
    }
    return { kind: 'password', column: await column(), password: auth.password };
  }
  if (auth.passwordHash) return { kind: 'hash', column: await column(), hash: auth.passwordHash };
  return { kind: 'any' };
}

async function accountMatches(s: Session, user: string, host: string, auth: UserAuth = {}): Promise<boolean> {
  const check = await checkFor(s, auth);
  return check !== null && (await s.rows(accountRow(user, host, check))).length === 1;
}

const isPluginActive = async (s: Session, name: string) => (await s.rows(pluginStatus(name)))[0]?.status === 'ACTIVE';

async function socketPluginActive(s: Session): Promise<boolean> {
  if (await isPluginActive(s, 'unix_socket')) return true;
  s.client.error = NO_SOCKET_PLUGIN;
  return false;
}

/** Whether the account exists (and, when given, has that password, hash, no password, or socket sign-in). */
export function userExists(m: MysqlClient, user: string, host = 'localhost', auth: UserAuth = {}): Promise<boolean> {
  return m.session(false, (s) => accountMatches(s, user, host, auth), auth.password);
}

export function pluginActive(m: MysqlClient, name: string): Promise<boolean> {
  return m.session(false, (s) => isPluginActive(s, name));
}

/** How a new account signs in; null when the arguments name no way (and passwordless is not allowed). */
async function credentialFor(s: Session, host: string, auth: UserAuth): Promise<Credential | null> {
  if (auth.unixSocket) return (await socketPluginActive(s)) && host === 'localhost' ? { socket: true } : null;
  if (auth.password !== undefined) return { password: auth.password };
  if (auth.passwordHash !== undefined) return { hash: auth.passwordHash };
  return auth.allowPasswordless ? { none: true } : null;
}

/** True when the account was created and then reads back with the password given. */
export function userCreate(m: MysqlClient, user: string, host = 'localhost', auth: UserAuth = {}): Promise<boolean> {
  return m.session(
    false,
    async (s) => {
      if (await accountMatches(s, user, host)) return false;
      const cred = await credentialFor(s, host, auth);
      if (!cred) return false;
      await s.run(createUser(user, host, cred, await server(s)));
      return accountMatches(s, user, host, { password: auth.password, passwordHash: auth.passwordHash, passwordColumn: auth.passwordColumn });
    },
    auth.password,
  );
}

/** The statement that gives an account a new secret, by what the server understands. */
async function newSecretStatement(s: Session, user: string, host: string, secret: NewSecret, plugin?: string): Promise<Statement> {
  const { version, mariadb } = await server(s);
  const current = async () => String((await s.rows(accountPlugin(user, host)))[0]?.plugin || 'mysql_native_password');
  if (mariadb && versionAtLeast(version, '10.4')) return alterUserSecret(user, host, secret, plugin ?? (await current()));
  if (!mariadb && versionAtLeast(version, '5.7.6')) return alterUserWith(user, host, secret, plugin ?? (await current()));
  return setPassword(user, host, secret);
}

/** Sets the account's password (or hash; or none, or socket sign-in, when passwordless is allowed). */
export function userChpass(m: MysqlClient, user: string, host = 'localhost', auth: UserAuth = {}): Promise<boolean> {
  return m.session(
    false,
    async (s) => {
      if (!(await accountMatches(s, user, host))) return false;
      if (auth.allowPasswordless && auth.unixSocket && host === 'localhost') {
        if (!(await socketPluginActive(s))) return false;
        await s.run(alterUserSocket(user, host, await server(s)));
        return true;
      }
      const secret: NewSecret | null =
        auth.password != null
          ? { password: auth.password }
          : auth.passwordHash != null
            ? { hash: auth.passwordHash }
            : auth.allowPasswordless
              ? { empty: true }
              : null;
      if (!secret) return false;
      await s.run(await newSecretStatement(s, user, host, secret, auth.authPlugin));
      return true;
    },
    auth.password,
  );
}

/** True when the account was there and is gone. */
export function userRemove(m: MysqlClient, user: string, host = 'localhost'): Promise<boolean> {
  return m.session(false, async (s) => {
    if (!(await accountMatches(s, user, host))) {
      s.client.error = `User '${user}'@'${host}' does not exists`;
      return false;
    }
    await s.run(dropUser(user, host));
    return !(await accountMatches(s, user, host));
  });
}
