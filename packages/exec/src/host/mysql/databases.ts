import type { MysqlClient, Session } from './client.js';
import { alterDatabase, createDatabase, dropDatabase, schemaDefaults } from './statements.js';

/** The mysql db_* functions; each answers as Salt's does and keeps a failure on the client. */

export interface DbInfo {
  character_set: string;
  collate: string;
}

/** The grant tables' schema is never dropped (the server itself refuses information_schema, and says so). */
const KEPT = 'mysql';

async function defaultsOf(s: Session, name: string): Promise<DbInfo | null> {
  const row = (await s.rows(schemaDefaults(name)))[0];
  if (!row) return null;
  return { character_set: String(row.DEFAULT_CHARACTER_SET_NAME), collate: String(row.DEFAULT_COLLATION_NAME) };
}

/** {character_set, collate}; {} when there is no such database, [] when the server could not be asked. */
export function dbGet(m: MysqlClient, name: string): Promise<Partial<DbInfo> | []> {
  return m.session<Partial<DbInfo> | []>([], async (s) => (await defaultsOf(s, name)) ?? {});
}

export function dbExists(m: MysqlClient, name: string): Promise<boolean> {
  return m.session(false, async (s) => (await defaultsOf(s, name)) !== null);
}

/** True when the database was created (false when it was there already). */
export function dbCreate(m: MysqlClient, name: string, characterSet?: string, collate?: string): Promise<boolean> {
  return m.session(false, async (s) => {
    if (await defaultsOf(s, name)) return false;
    await s.run(createDatabase(name, characterSet, collate));
    return true;
  });
}

/** True when the database was there and is gone. */
export function dbRemove(m: MysqlClient, name: string): Promise<boolean> {
  return m.session(false, async (s) => {
    if (name === KEPT || !(await defaultsOf(s, name))) return false;
    await s.run(dropDatabase(name));
    return (await defaultsOf(s, name)) === null;
  });
}

/** Sets the character set and collation; what is not given stays as it is. */
export function alterDb(m: MysqlClient, name: string, characterSet?: string, collate?: string): Promise<boolean> {
  return m.session(false, async (s) => {
    const now = await defaultsOf(s, name);
    await s.run(alterDatabase(name, characterSet ?? now?.character_set, collate ?? now?.collate));
    return true;
  });
}
