import { Client, EqualityFilter, AndFilter, InvalidCredentialsError } from 'ldapts';
import { masterErrors } from '../errors.js';

/** Salt's auth.ldap.* options as Brine reads them. */
export interface LdapOptions {
  server: string;
  port: number;
  tls: boolean;
  basedn: string;
  /** With `{{ username }}`: the user's own DN (bind as the user). Otherwise a search account. */
  binddn: string;
  bindpw: string;
  filter: string;
  groupou: string;
  groupclass: string;
  accountattributename: string;
}

/** RFC 4514: a user name placed in a DN cannot add or change its components. */
function dnValue(v: string): string {
  return v
    .replace(/[,+"\\<>;=]/g, (c) => `\\${c}`)
    .replace(/^[ #]/, (c) => `\\${c}`)
    .replace(/ $/, '\\ ');
}

/** RFC 4515: a user name placed in a filter cannot change it. */
function filterValue(v: string): string {
  return v.replace(/[\\*()\0]/g, (c) => `\\${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

const username = (template: string, user: string, escape: (v: string) => string): string => template.replace(/\{\{\s*username\s*\}\}/g, escape(user));

/**
 * Signs a user in against the directory as Salt's LDAP eauth does: binds as the user (binddn
 * with `{{ username }}`, or the DN a search account finds with `filter`), then reads their groups
 * under `ou=<groupou>,<basedn>` (objectClass groupclass, accountattributename = user name).
 * Undefined for a wrong name or password; a directory that cannot be reached is an error.
 */
export async function ldapSignIn(o: LdapOptions, user: string, password: string): Promise<{ groups: string[] } | undefined> {
  // an empty password is an unauthenticated bind, which most directories accept
  if (!password || !user) return undefined;
  const url = `${o.tls ? 'ldaps' : 'ldap'}://${o.server.includes(':') ? `[${o.server}]` : o.server}:${o.port}`;
  const client = new Client({ url, timeout: 10_000, connectTimeout: 5_000 });
  try {
    let dn: string;
    if (/\{\{\s*username\s*\}\}/.test(o.binddn)) dn = username(o.binddn, user, dnValue);
    else {
      await client.bind(o.binddn, o.bindpw);
      const found = await client.search(o.basedn, { scope: 'sub', filter: `(${username(o.filter, user, filterValue)})`, attributes: ['dn'], sizeLimit: 2 });
      if (found.searchEntries.length !== 1) return undefined;
      dn = found.searchEntries[0]!.dn;
      await client.unbind();
    }
    try {
      await client.bind(dn, password);
    } catch (err) {
      if (err instanceof InvalidCredentialsError) return undefined;
      throw err;
    }
    const base = o.groupou ? `ou=${dnValue(o.groupou)},${o.basedn}` : o.basedn;
    const filter = new AndFilter({
      filters: [new EqualityFilter({ attribute: 'objectClass', value: o.groupclass }), new EqualityFilter({ attribute: o.accountattributename, value: user })],
    });
    const res = await client.search(base, { scope: 'sub', filter, attributes: ['cn'] });
    const groups = res.searchEntries.flatMap((e) => (Array.isArray(e.cn) ? e.cn : [e.cn])).map(String);
    return { groups };
  } catch (err) {
    throw masterErrors.make('BRINE_ERR_MASTER_LDAP', { server: url, detail: (err as Error).message });
  } finally {
    await client.unbind().catch(() => undefined);
  }
}
