import { MysqlError, quoteIdentifier, type MysqlClient } from './client.js';

/** Salt's mysql db_* functions: each returns what Salt's returns and keeps the error on the client. */

async function guarded<T>(fallback: T, fn: () => Promise<T | null>): Promise<T> {
  try {
    const v = await fn();
    return v === null ? fallback : v;
  } catch (e) {
    if (e instanceof MysqlError) return fallback;
    throw e;
  }
}

export interface DbInfo {
  character_set: string;
  collate: string;
}

/** {character_set, collate}, {} when absent, [] when the server could not be asked. */
export function dbGet(m: MysqlClient, name: string): Promise<Partial<DbInfo> | []> {
  return guarded<Partial<DbInfo> | []>([], () =>
    m.with(async (c): Promise<Partial<DbInfo>> => {
      const { rows } = await m.run(
        c,
        'SELECT DEFAULT_CHARACTER_SET_NAME, DEFAULT_COLLATION_NAME FROM INFORMATION_SCHEMA.SCHEMATA WHERE SCHEMA_NAME=%(dbname)s;',
        { dbname: name },
      );
      if (!rows.length) return {};
      const [cs, coll] = Object.values(rows[0]!);
      return { character_set: String(cs), collate: String(coll) };
    }),
  );
}

export function dbExists(m: MysqlClient, name: string): Promise<boolean> {
  return guarded(false, () => m.with(async (c) => (await m.run(c, 'SHOW DATABASES LIKE %(dbname)s;', { dbname: name })).count === 1));
}

export async function dbCreate(m: MysqlClient, name: string, characterSet?: string, collate?: string): Promise<boolean> {
  if (await dbExists(m, name)) return false;
  return guarded(false, () =>
    m.with(async (c) => {
      let qry = `CREATE DATABASE IF NOT EXISTS ${quoteIdentifier(name)}`;
      const args: Record<string, unknown> = {};
      if (characterSet !== undefined) {
        qry += ' CHARACTER SET %(character_set)s';
        args.character_set = characterSet;
      }
      if (collate !== undefined) {
        qry += ' COLLATE %(collate)s';
        args.collate = collate;
      }
      return (await m.run(c, `${qry};`, args)).count > 0;
    }),
  );
}

export async function dbRemove(m: MysqlClient, name: string): Promise<boolean> {
  if (!(await dbExists(m, name))) return false;
  if (name === 'mysql' || name === 'information_scheme') return false;
  const dropped = await guarded(false, () => m.with(async (c) => (await m.run(c, `DROP DATABASE ${quoteIdentifier(name)};`), true)));
  return dropped && !(await dbExists(m, name));
}

export async function alterDb(m: MysqlClient, name: string, characterSet?: string, collate?: string): Promise<boolean> {
  const existing = (await dbGet(m, name)) as Partial<DbInfo>;
  return guarded(false, () =>
    m.with(
      async (c) =>
        (await m.run(c, `ALTER DATABASE \`${name}\` CHARACTER SET ${characterSet ?? existing.character_set} COLLATE ${collate ?? existing.collate};`)).count >
        0,
    ),
  );
}
