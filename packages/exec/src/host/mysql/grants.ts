import { MysqlError, quoteIdentifier, type MysqlClient } from './client.js';
import { userExists } from './users.js';

/**
 * Salt's mysql grant_* functions: grants are generated, read back with SHOW GRANTS and compared
 * token by token the way Salt tokenizes them (Python's shlex in its non-POSIX mode).
 */

const GRANTS = new Set([
  'ALL PRIVILEGES',
  'ALTER',
  'ALTER ROUTINE',
  'BACKUP_ADMIN',
  'BINLOG_ADMIN',
  'BINLOG ADMIN',
  'BINLOG MONITOR',
  'BINLOG REPLAY',
  'CONNECTION_ADMIN',
  'CONNECTION ADMIN',
  'CREATE',
  'CREATE ROLE',
  'CREATE ROUTINE',
  'CREATE TABLESPACE',
  'CREATE TEMPORARY TABLES',
  'CREATE USER',
  'CREATE VIEW',
  'DELETE',
  'DELETE HISTORY',
  'DROP',
  'DROP ROLE',
  'ENCRYPTION_KEY_ADMIN',
  'EVENT',
  'EXECUTE',
  'FEDERATED ADMIN',
  'FILE',
  'GRANT OPTION',
  'GROUP_REPLICATION_ADMIN',
  'INDEX',
  'INSERT',
  'LOCK TABLES',
  'PERSIST_RO_VARIABLES_ADMIN',
  'PROCESS',
  'READ_ONLY ADMIN',
  'REFERENCES',
  'RELOAD',
  'REPLICA MONITOR',
  'REPLICATION CLIENT',
  'REPLICATION MASTER ADMIN',
  'REPLICATION REPLICA',
  'REPLICATION SLAVE',
  'REPLICATION_SLAVE_ADMIN',
  'REPLICATION SLAVE ADMIN',
  'RESOURCE_GROUP_ADMIN',
  'RESOURCE_GROUP_USER',
  'ROLE_ADMIN',
  'SELECT',
  'SET USER',
  'SET_USER_ID',
  'SERVICE_CONNECTION_ADMIN',
  'SHOW DATABASES',
  'SHOW VIEW',
  'SHUTDOWN',
  'SLAVE MONITOR',
  'SUPER',
  'SYSTEM_VARIABLES_ADMIN',
  'TRIGGER',
  'UPDATE',
  'USAGE',
  'XA_RECOVER_ADMIN',
]);
const SSL_PARAMETERIZED = ['CIPHER', 'ISSUER', 'SUBJECT'];
const SSL_OPTIONS = [...SSL_PARAMETERIZED, 'SSL', 'X509'];

export class GrantError extends Error {}

function normalizeGrant(grant: string): string {
  const g = grant.trim().toUpperCase() === 'ALL' ? 'ALL PRIVILEGES' : grant;
  for (const m of g.matchAll(/([\w\s]+)(\([^)(]*\))?\s*,?/g)) {
    if (!GRANTS.has(m[1]!.trim().toUpperCase())) throw new GrantError(`Invalid grant : '${m[1]}'`);
  }
  return g;
}

function sslRequire(options: Array<Record<string, unknown>>): string {
  const out: string[] = [];
  for (const opt of options) {
    const key = Object.keys(opt)[0]!;
    const k = key.trim().toUpperCase();
    if (!SSL_OPTIONS.includes(k)) throw new GrantError(`Invalid SSL option : '${key}'`);
    if (SSL_PARAMETERIZED.includes(k)) out.push(`${k} '${String(opt[key]).replace(/'/g, '')}'`);
    else if (opt[key]) out.push(k);
  }
  return ` REQUIRE ${out.join(' AND ')}`;
}

function splitDatabase(database: string): [string, string] {
  const i = database.lastIndexOf('.');
  return i < 0 ? ['', database] : [database.slice(0, i), database.slice(i + 1)];
}

export interface GrantSpec {
  grant: string;
  database: string;
  user: string;
  host: string;
  grantOption?: boolean;
  escape?: boolean;
  sslOption?: Array<Record<string, unknown>> | false;
}

function generate(s: GrantSpec): { qry: string; args: Record<string, string> } {
  const grant = normalizeGrant(s.grant.replace(/\s*,\s*/g, ', ').toUpperCase());
  let [db, table] = splitDatabase(s.database);
  if (s.escape !== false) {
    if (db !== '*') db = quoteIdentifier(db, table === '*');
    if (table !== '*') table = quoteIdentifier(table);
  }
  let qry = `GRANT ${grant} ON ${db}.${table} TO %(user)s@%(host)s`;
  if (Array.isArray(s.sslOption)) qry += sslRequire(s.sslOption);
  if (s.grantOption) qry += ' WITH GRANT OPTION';
  return { qry, args: { user: s.user, host: s.host } };
}

const WORD = /[A-Za-z0-9_"]/;

/** Python's shlex.shlex in non-POSIX mode with quotes ' and `, and `"` as a word character. */
function shlexTokens(text: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    if (/\s/.test(ch)) {
      i++;
    } else if (ch === "'" || ch === '`') {
      const end = text.indexOf(ch, i + 1);
      if (end < 0) throw new GrantError('No closing quotation');
      out.push(text.slice(i, end + 1));
      i = end + 1;
    } else if (WORD.test(ch)) {
      let j = i + 1;
      // a word goes on through word characters and quote characters (non-POSIX shlex)
      while (j < text.length && (WORD.test(text[j]!) || text[j] === "'" || text[j] === '`')) j++;
      out.push(text.slice(i, j));
      i = j;
    } else {
      out.push(ch);
      i++;
    }
  }
  return out;
}

interface GrantTokens {
  user: string;
  host: string;
  grant: string[];
  database: string;
}

/** Salt's _grant_to_tokens, for SHOW GRANTS lines and for a generated grant (dict mode). */
export function grantTokensOf(grant: string | { qry: string; args: Record<string, string> }): GrantTokens {
  const dictMode = typeof grant !== 'string';
  const sql = dictMode ? grant.qry.replace(/%%/g, '%') : grant;
  let user = dictMode ? (grant.args.user ?? 'undefined') : '';
  let host = dictMode ? (grant.args.host ?? 'undefined') : '';
  const tokens = shlexTokens(sql);
  const grants: string[] = [];
  let multi: string[] = [];
  let pos = 1;
  let database = '';
  let phrase = 'grants';
  let column = false;
  let current = '';
  for (let token of tokens.slice(1)) {
    if (phrase === 'grants' && token === ',') {
      pos++;
      continue;
    }
    if (phrase === 'grants' && token === '(') {
      pos++;
      column = true;
      continue;
    }
    if (phrase === 'grants' && token === ')') {
      pos++;
      column = false;
      continue;
    }
    if (token === 'ON' && phrase === 'grants') {
      phrase = 'db';
      pos++;
      continue;
    } else if (token === 'TO' && phrase === 'tables') {
      phrase = 'user';
      pos++;
      continue;
    } else if (token === '@' && phrase === 'pre-host') {
      phrase = 'host';
      pos++;
      continue;
    }
    const next = tokens[pos + 1];
    if (phrase === 'grants') {
      if (next === ',' || next === 'ON' || next === '(' || next === ')') {
        if (multi.length) {
          multi.push(token);
          grants.push(multi.join(' '));
          multi = [];
        } else {
          if (!column) current = token;
          else token = `${current}.${token}`;
          grants.push(token);
        }
      } else multi.push(token);
    } else if (phrase === 'db') {
      database += token;
      if (next === undefined) break;
      if (next === '.') phrase = 'tables';
    } else if (phrase === 'tables') {
      database += token;
    } else if (phrase === 'user') {
      if (dictMode) break;
      user += token;
      if (next === '@') phrase = 'pre-host';
    } else if (phrase === 'host') {
      host = token;
      break;
    }
    pos++;
  }
  if (!dictMode) {
    user = user.replace(/^'+|'+$/g, '');
    host = host.replace(/^'+|'+$/g, '');
  }
  return { user, host, grant: grants, database };
}

function versionAtLeast(version: string, want: string): boolean {
  const a = version.split(/[.-]/).map((x) => parseInt(x, 10) || 0);
  const b = want.split('.').map(Number);
  for (let i = 0; i < b.length; i++) if ((a[i] ?? 0) !== b[i]) return (a[i] ?? 0) > b[i]!;
  return true;
}

/** MariaDB renamed some privileges; SHOW GRANTS prints the new names. */
function resolveAliases(grants: string[], version: string): string[] {
  if (!version.includes('MariaDB')) return grants;
  return grants.map((t) => {
    if (versionAtLeast(version, '10.5.1') && t === 'REPLICATION REPLICA') return 'REPLICATION SLAVE';
    if (versionAtLeast(version, '10.5.2') && t === 'REPLICATION CLIENT') return 'BINLOG MONITOR';
    if (versionAtLeast(version, '10.5.9') && t === 'REPLICA MONITOR') return 'SLAVE MONITOR';
    return t;
  });
}

/** SHOW GRANTS for the account (without IDENTIFIED BY), or false. */
export async function userGrants(m: MysqlClient, user: string, host = 'localhost'): Promise<string[] | false> {
  if (!(await userExists(m, user, host))) return false;
  try {
    const rows = await m.with(async (c) => (await m.run(c, 'SHOW GRANTS FOR %(user)s@%(host)s', { user, host })).rows);
    if (rows === null) return false;
    return rows.map((r) => {
      const line = String(Object.values(r)[0]);
      let tmp = line.split(' IDENTIFIED BY')[0]!;
      if (line.includes('WITH GRANT OPTION') && !tmp.includes('WITH GRANT OPTION')) tmp += ' WITH GRANT OPTION';
      return tmp;
    });
  } catch (e) {
    if (e instanceof MysqlError) return false;
    throw e;
  }
}

const bare = (s: string) => s.replace(/["\\`]/g, '');

export async function grantExists(m: MysqlClient, spec: GrantSpec): Promise<boolean> {
  const version = await m.version();
  if (!version) return false;
  let grant = spec.grant;
  if (grant.toUpperCase().includes('ALL')) grant = 'ALL PRIVILEGES';
  let target;
  try {
    target = generate({ ...spec, grant });
  } catch (e) {
    if (e instanceof GrantError) return false;
    throw e;
  }
  const grants = await userGrants(m, spec.user, spec.host);
  if (grants === false) return false;
  const byDb = new Map<string, GrantTokens>();
  for (const g of grants) {
    const t = grantTokensOf(g);
    t.grant = resolveAliases(t.grant, version);
    const seen = byDb.get(t.database);
    if (seen) seen.grant.push(...t.grant);
    else byDb.set(t.database, t);
  }
  const want = grantTokensOf(target);
  want.grant = resolveAliases(want.grant, version);
  for (const have of byDb.values()) {
    if (
      bare(have.user) === bare(want.user) &&
      bare(have.database) === bare(want.database) &&
      bare(have.host) === bare(want.host) &&
      want.grant.every((g) => have.grant.includes(g))
    ) {
      return true;
    }
  }
  return false;
}

export async function grantAdd(m: MysqlClient, spec: GrantSpec): Promise<boolean> {
  let q;
  try {
    q = generate({ ...spec, grant: spec.grant.trim() });
  } catch (e) {
    if (e instanceof GrantError) return false;
    throw e;
  }
  const ran = await m
    .with(async (c) => (await m.run(c, q.qry, q.args), true))
    .catch((e) => {
      if (e instanceof MysqlError) return false;
      throw e;
    });
  if (!ran) return false;
  return grantExists(m, { ...spec, grant: spec.grant.trim() });
}

export async function grantRevoke(m: MysqlClient, spec: GrantSpec): Promise<boolean> {
  let grant = normalizeGrant(spec.grant);
  if (spec.grantOption) grant += ', GRANT OPTION';
  const [db, t] = splitDatabase(spec.database);
  const sDb = db === '*' ? db : quoteIdentifier(db, t === '*');
  const table = t === '*' ? t : quoteIdentifier(t);
  const ran = await m
    .with(async (c) => (await m.run(c, `REVOKE ${grant} ON ${sDb}.${table} FROM %(user)s@%(host)s;`, { user: spec.user, host: spec.host }), true))
    .catch((e) => {
      if (e instanceof MysqlError) return false;
      throw e;
    });
  if (!ran) return false;
  return !(await grantExists(m, { ...spec, grant }));
}
