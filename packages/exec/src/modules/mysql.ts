import type { ExecContext, ExecFunction, Param } from '../function.js';
import {
  alterDb,
  dbCreate,
  dbExists,
  dbGet,
  dbRemove,
  grantAdd,
  grantExists,
  grantRevoke,
  MysqlClient,
  userChpass,
  userCreate,
  userExists,
  userGrants,
  userRemove,
} from '../host/mysql/index.js';

/**
 * Salt's mysql execution module (databases, users, grants). Connection arguments are the
 * `connection_*` keyword arguments, else the minion's `mysql.*` options (config, then pillar).
 */

function client(a: Record<string, unknown>, ctx: ExecContext): MysqlClient {
  const kwargs = (a.kwargs ?? {}) as Record<string, unknown>;
  return new MysqlClient(Object.fromEntries(Object.entries(kwargs).filter(([k]) => k.startsWith('connection_'))), async (name) => {
    if (Object.hasOwn(ctx.opts, name)) return ctx.opts[name];
    const pillar = await ctx.pillar();
    return Object.hasOwn(pillar, name) ? pillar[name] : undefined;
  });
}

const str = (v: unknown) => (v === undefined || v === null ? undefined : String(v));
const p = (name: string, required = true, def?: unknown): Param => ({ name, type: 'any', required, ...(def !== undefined ? { default: def } : {}) });
const grantParams = [p('grant'), p('database'), p('user'), p('host', false, 'localhost'), p('grant_option', false, false), p('escape', false, true)];
const grantSpec = (a: Record<string, unknown>) => ({
  grant: String(a.grant),
  database: String(a.database),
  user: String(a.user),
  host: String(a.host),
  grantOption: a.grant_option === true,
  escape: a.escape !== false,
});

function fn(name: string, doc: string, params: Param[], run: (a: Record<string, unknown>, m: MysqlClient) => Promise<unknown>): ExecFunction {
  return { name: `mysql.${name}`, doc, params, extraKwargs: true, run: async (a, ctx) => ({ return: await run(a, client(a, ctx)) }) };
}

export const mysqlFunctions: ExecFunction[] = [
  fn('version', "The server's version.", [], (_a, m) => m.version()),
  fn('db_exists', 'Whether the database exists.', [p('name')], (a, m) => dbExists(m, String(a.name))),
  fn('db_get', "The database's character set and collation.", [p('name')], (a, m) => dbGet(m, String(a.name))),
  fn('db_create', 'Creates the database.', [p('name'), p('character_set', false), p('collate', false)], (a, m) =>
    dbCreate(m, String(a.name), str(a.character_set), str(a.collate)),
  ),
  fn('db_remove', 'Drops the database.', [p('name')], (a, m) => dbRemove(m, String(a.name))),
  fn('alter_db', "Changes the database's character set or collation.", [p('name'), p('character_set', false), p('collate', false)], (a, m) =>
    alterDb(m, String(a.name), str(a.character_set), str(a.collate)),
  ),
  fn(
    'user_exists',
    'Whether the account exists (with that password, when given).',
    [
      p('user'),
      p('host', false, 'localhost'),
      p('password', false),
      p('password_hash', false),
      p('passwordless', false, false),
      p('unix_socket', false, false),
    ],
    (a, m) =>
      userExists(m, String(a.user), String(a.host), {
        password: str(a.password),
        passwordHash: str(a.password_hash),
        passwordless: a.passwordless === true,
        unixSocket: a.unix_socket === true,
      }),
  ),
  fn(
    'user_create',
    'Creates the account.',
    [
      p('user'),
      p('host', false, 'localhost'),
      p('password', false),
      p('password_hash', false),
      p('allow_passwordless', false, false),
      p('unix_socket', false, false),
    ],
    (a, m) =>
      userCreate(m, String(a.user), String(a.host), {
        password: str(a.password),
        passwordHash: str(a.password_hash),
        allowPasswordless: a.allow_passwordless === true,
        unixSocket: a.unix_socket === true,
      }),
  ),
  fn(
    'user_chpass',
    "Changes the account's password.",
    [
      p('user'),
      p('host', false, 'localhost'),
      p('password', false),
      p('password_hash', false),
      p('allow_passwordless', false, false),
      p('unix_socket', false, false),
    ],
    (a, m) =>
      userChpass(m, String(a.user), String(a.host), {
        password: str(a.password),
        passwordHash: str(a.password_hash),
        allowPasswordless: a.allow_passwordless === true,
        unixSocket: a.unix_socket === true,
      }),
  ),
  fn('user_remove', 'Drops the account.', [p('user'), p('host', false, 'localhost')], (a, m) => userRemove(m, String(a.user), String(a.host))),
  fn('user_grants', "The account's grants, as SHOW GRANTS prints them.", [p('user'), p('host', false, 'localhost')], (a, m) =>
    userGrants(m, String(a.user), String(a.host)),
  ),
  fn('grant_exists', 'Whether the account holds the grant.', grantParams, (a, m) => grantExists(m, grantSpec(a))),
  fn('grant_add', 'Grants privileges on a database or table.', grantParams, (a, m) => grantAdd(m, grantSpec(a))),
  fn('grant_revoke', 'Revokes privileges.', grantParams, (a, m) => grantRevoke(m, grantSpec(a))),
];
