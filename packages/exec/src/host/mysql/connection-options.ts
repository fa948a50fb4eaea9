import { existsSync, readFileSync } from 'node:fs';

/**
 * Where a mysql call connects: its `connection_*` arguments, else the minion's `mysql.*`
 * options (config, then pillar), unless a `connection_default_file` is given, whose
 * option-file settings then fill what the arguments leave out.
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

const SETTINGS = ['host', 'user', 'pass', 'port', 'db', 'unix_socket', 'default_file', 'default_group', 'charset'] as const;
type Setting = (typeof SETTINGS)[number];

/** Debian's server socket, used when neither a host nor a socket is named. */
const DEFAULT_SOCKET = '/run/mysqld/mysqld.sock';

/** The `[client]` settings of a MySQL option file, overlaid by those of `group` (dashes read as underscores). */
export function readOptionFile(file: string, group = 'client'): Record<string, string> {
  const out: Record<string, string> = {};
  if (!existsSync(file)) return out;
  let section = '';
  for (const raw of readFileSync(file, 'utf8').split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[(.+)\]$/.exec(line);
    if (header) section = header[1]!.trim();
    else if (section === 'client' || section === group) {
      const eq = line.indexOf('=');
      const key = (eq < 0 ? line : line.slice(0, eq)).trim().replaceAll('-', '_');
      out[key] = eq < 0 ? '' : unquoteOptionValue(line.slice(eq + 1).trim());
    }
  }
  return out;
}

function unquoteOptionValue(v: string): string {
  const m = /^(['"])(.*)\1$/.exec(v);
  return m ? m[2]! : v;
}

/** The settings given: each `connection_<name>`, else (without an option file) the `mysql.<name>` option. */
async function givenSettings(kwargs: Record<string, unknown>, option: OptionLookup): Promise<Partial<Record<Setting, string>>> {
  const useOptions = !Object.hasOwn(kwargs, 'connection_default_file');
  const out: Partial<Record<Setting, string>> = {};
  for (const name of SETTINGS) {
    let v = kwargs[`connection_${name}`];
    if (v === undefined && useOptions && name !== 'charset') v = await option(`mysql.${name}`);
    if (v !== undefined && v !== null && v !== '') out[name] = String(v);
  }
  return out;
}

/** mysql2 connection settings; `password` replaces the configured one (a retry with the account's own). */
export async function resolveConnectArgs(kwargs: Record<string, unknown>, option: OptionLookup, password?: string): Promise<MysqlConnectArgs> {
  const given = await givenSettings(kwargs, option);
  if (password !== undefined) given.pass = password;
  const file = given.default_file ? readOptionFile(given.default_file, given.default_group) : {};
  const pick = (name: Setting, fileKey: string) => given[name] ?? (file[fileKey] || undefined);
  const host = pick('host', 'host');
  // as libmysqlclient: a socket only for no host or `localhost`; another host is dialled over
  // TCP even when a unix_socket is named too
  const local = !host || host === 'localhost';
  const socketPath = local ? (pick('unix_socket', 'socket') ?? DEFAULT_SOCKET) : undefined;
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
