import type { MysqlClient, Session } from './client.js';
import { GrantError, levelSql, parseShownGrant, parseWantedPrivileges, wantedLevel, type Level, type ShownGrant } from './grant-text.js';
import { holds, privilegeKeys, type Privilege } from './privileges.js';
import { statement, type Statement } from './sql.js';
import { accountRow, grantStatement, requireClause, revokeStatements, showGrants } from './statements.js';

export { GrantError } from './grant-text.js';

/**
 * The mysql grant_* functions. Whether an account holds a grant is read from SHOW GRANTS:
 * the privileges its lines give on the grant's level, together, must include each one asked for.
 */

export interface GrantSpec {
  grant: string;
  database: string;
  user: string;
  host: string;
  grantOption?: boolean;
  escape?: boolean;
  sslOption?: Array<Record<string, unknown>> | false;
}

interface Wanted {
  privileges: Privilege[];
  level: string;
  require: Statement;
}

type TlsOption = Parameters<typeof requireClause>[0][number];

/** A state's ssl_option list ([{SSL: True}, {CIPHER: '...'}]) as REQUIRE options. */
function tlsOptions(options: Array<Record<string, unknown>>): TlsOption[] {
  const out: TlsOption[] = [];
  for (const entry of options) {
    for (const [key, value] of Object.entries(entry)) {
      const option = key.trim().toUpperCase();
      if (option === 'SSL' || option === 'X509') {
        if (value) out.push({ option });
      } else if (option === 'CIPHER' || option === 'ISSUER' || option === 'SUBJECT') out.push({ option, value: String(value) });
      else throw new GrantError(`Invalid SSL option : '${key}'`);
    }
  }
  return out;
}

/** The grant a spec asks for; GrantError when its privileges, level or TLS options are not ones GRANT takes. */
function wanted(spec: GrantSpec): Wanted {
  return {
    privileges: parseWantedPrivileges(spec.grant),
    level: levelSql(wantedLevel(spec.database, spec.escape !== false)),
    require: Array.isArray(spec.sslOption) ? requireClause(tlsOptions(spec.sslOption)) : statement(''),
  };
}

/** The spec's grant, or null when GRANT would not take it (Salt answers False then, with no error). */
function wantedOrNull(spec: GrantSpec): Wanted | null {
  try {
    return wanted(spec);
  } catch (e) {
    if (e instanceof GrantError) return null;
    throw e;
  }
}

const accountExists = async (s: Session, user: string, host: string) => (await s.rows(accountRow(user, host))).length > 0;

async function shownGrants(s: Session, user: string, host: string): Promise<string[]> {
  return (await s.rows(showGrants(user, host))).map((row) => String(Object.values(row)[0]));
}

/** The account's grants on one level (SQL text as levelSql gives it); host names ignore case. */
async function grantsOn(s: Session, user: string, host: string, level: string): Promise<ShownGrant[]> {
  return (await shownGrants(s, user, host))
    .map(parseShownGrant)
    .filter((g): g is ShownGrant => g !== null && g.user === user && g.host.toLowerCase() === host.toLowerCase() && levelSql(g.level) === level);
}

/** Keys of the privileges held on the level (see privilegeKeys), GRANT OPTION among them when held. */
async function heldOn(s: Session, user: string, host: string, level: string): Promise<Set<string>> {
  const held = new Set<string>();
  for (const g of await grantsOn(s, user, host, level)) {
    for (const k of privilegeKeys(g.privileges)) held.add(k);
    if (g.grantOption) held.add('GRANT OPTION');
  }
  return held;
}

function wantedKeys(w: Wanted, grantOption: boolean | undefined): string[] {
  return [...privilegeKeys(w.privileges), ...(grantOption ? ['GRANT OPTION'] : [])];
}

async function holdsAll(s: Session, spec: GrantSpec, w: Wanted): Promise<boolean> {
  const held = await heldOn(s, spec.user, spec.host, w.level);
  return wantedKeys(w, spec.grantOption).every((k) => holds(held, k));
}

/** SHOW GRANTS lines without the password hash MariaDB and MySQL 5 print after IDENTIFIED BY (Salt's user_grants). */
function withoutPassword(line: string): string {
  const cut = line.indexOf(' IDENTIFIED BY');
  if (cut < 0) return line;
  return line.slice(0, cut) + (line.includes(' WITH GRANT OPTION') ? ' WITH GRANT OPTION' : '');
}

/** The account's SHOW GRANTS lines, or false when there is no such account. */
export function userGrants(m: MysqlClient, user: string, host = 'localhost'): Promise<string[] | false> {
  return m.session<string[] | false>(false, async (s) =>
    (await accountExists(s, user, host)) ? (await shownGrants(s, user, host)).map(withoutPassword) : false,
  );
}

export async function grantExists(m: MysqlClient, spec: GrantSpec): Promise<boolean> {
  const w = wantedOrNull(spec);
  if (!w) return false;
  return m.session(false, async (s) => (await accountExists(s, spec.user, spec.host)) && holdsAll(s, spec, w));
}

/** True when the GRANT ran and the account then holds it. */
export async function grantAdd(m: MysqlClient, spec: GrantSpec): Promise<boolean> {
  const w = wantedOrNull(spec);
  if (!w) return false;
  return m.session(false, async (s) => {
    await s.run(grantStatement(w.privileges, w.level, spec.user, spec.host, { require: w.require, grantOption: spec.grantOption }));
    return holdsAll(s, spec, w);
  });
}

/** True when the REVOKE ran and the account then holds none of those privileges (nor GRANT OPTION, when asked). */
export async function grantRevoke(m: MysqlClient, spec: GrantSpec): Promise<boolean> {
  const w = wantedOrNull(spec);
  if (!w) return false;
  const privileges = spec.grantOption ? [...w.privileges, { name: 'GRANT OPTION', columns: [] }] : w.privileges;
  return m.session(false, async (s) => {
    for (const stmt of revokeStatements(privileges, w.level, spec.user, spec.host)) await s.run(stmt);
    const held = await heldOn(s, spec.user, spec.host, w.level);
    return !wantedKeys(w, spec.grantOption).some((k) => holds(held, k));
  });
}

/** Revokes whatever the account holds on the spec's level (mysql_grants.present's revoke_first); true when nothing is left there. */
export function revokeGrantsOn(m: MysqlClient, spec: Pick<GrantSpec, 'database' | 'user' | 'host' | 'escape'>): Promise<boolean> {
  let level: Level;
  try {
    level = wantedLevel(spec.database, spec.escape !== false);
  } catch (e) {
    if (e instanceof GrantError) return Promise.resolve(false);
    throw e;
  }
  const text = levelSql(level);
  return m.session(false, async (s) => {
    const held = await grantsOn(s, spec.user, spec.host, text);
    const privileges = held.flatMap((g) => g.privileges).filter((p) => p.name !== 'USAGE');
    if (held.some((g) => g.grantOption)) privileges.push({ name: 'GRANT OPTION', columns: [] });
    for (const stmt of revokeStatements(privileges, text, spec.user, spec.host)) await s.run(stmt);
    return (await grantsOn(s, spec.user, spec.host, text)).every((g) => g.privileges.every((p) => p.name === 'USAGE'));
  });
}
