import { privilegeName, type Privilege } from './privileges.js';
import { literalDbPattern, quoteName } from './sql.js';
import { SqlTextError, tokenize, TokenCursor } from './sql-tokens.js';

/**
 * The parts of a grant: the privilege list and the level it is on (`*.*`, `db.*`, `db.table`),
 * read from a state's arguments or from a line of SHOW GRANTS, whose form the manual gives as
 *   GRANT priv [(col, ...)] [, ...] ON [object_type] level TO user@host [REQUIRE ...] [WITH GRANT OPTION ...]
 * (other lines, `GRANT role TO ...` and `GRANT PROXY ON user@host TO ...`, are not about levels).
 */

export class GrantError extends Error {
  override name = 'GrantError';
}

/** A privilege level; null is the `*` wildcard. A db with table `*` is a pattern (see literalDbPattern). */
export interface Level {
  objectType?: string;
  db: string | null;
  table: string | null;
}

/** The level as GRANT takes it, and the key levels are compared by. */
export function levelSql(level: Level): string {
  const part = (p: string | null) => (p === null ? '*' : quoteName(p));
  return `${level.objectType ? `${level.objectType} ` : ''}${part(level.db)}.${part(level.table)}`;
}

/** `name [(col, ...)]` up to a `,` or the word that ends the list; null when there is none. */
function readPrivilege(c: TokenCursor, end: string): { words: string[]; columns: string[] } | null {
  const words: string[] = [];
  while (c.peek()?.kind === 'word' && !c.isWord(end)) words.push(c.next()!.text);
  if (!words.length) return null;
  const columns: string[] = [];
  if (c.eatMark('(')) {
    do {
      const t = c.next();
      if (t?.kind !== 'name' && t?.kind !== 'word') throw new SqlTextError('column name expected');
      columns.push(t.text);
    } while (c.eatMark(','));
    if (!c.eatMark(')')) throw new SqlTextError('`)` expected');
  }
  return { words, columns };
}

/** Runs a reader over the text's tokens; text it cannot read is a GrantError naming `what`. */
function readAll<T>(text: string, what: string, read: (c: TokenCursor) => T): T {
  try {
    const c = new TokenCursor(tokenize(text));
    const out = read(c);
    if (c.done()) return out;
  } catch (e) {
    if (!(e instanceof SqlTextError)) throw e;
  }
  throw new GrantError(`Invalid ${what} : '${text}'`);
}

/** Privileges a state asks for ("select, insert", "ALL", "SELECT (a, b)"); GrantError names one GRANT does not know. */
export function parseWantedPrivileges(text: string): Privilege[] {
  return readAll(text, 'grant', (c) => {
    const out: Privilege[] = [];
    do {
      const p = readPrivilege(c, '');
      if (!p) throw new SqlTextError('privilege expected');
      const name = privilegeName(p.words);
      if (!name) throw new GrantError(`Invalid grant : '${p.words.join(' ')}'`);
      out.push({ name, columns: p.columns });
    } while (c.eatMark(','));
    return out;
  });
}

/** `*`, a `quoted` or a bare name. */
function readLevelPart(c: TokenCursor): string | null {
  const t = c.next();
  if (t?.kind === 'mark' && t.text === '*') return null;
  if (t?.kind === 'name' || t?.kind === 'word') return t.text;
  throw new SqlTextError('level expected');
}

const OBJECT_TYPES = new Set(['TABLE', 'FUNCTION', 'PROCEDURE', 'PACKAGE']);

function readLevel(c: TokenCursor): Level {
  let objectType: string | undefined;
  const first = c.peek();
  if (first?.kind === 'word' && OBJECT_TYPES.has(first.text.toUpperCase()) && !c.isMark('.', 1)) {
    objectType = c.next()!.text.toUpperCase();
    if (objectType === 'PACKAGE' && c.isWord('BODY')) objectType += ` ${c.next()!.text.toUpperCase()}`;
  }
  const db = readLevelPart(c);
  if (!c.eatMark('.')) throw new SqlTextError('`.` expected');
  return { objectType, db, table: readLevelPart(c) };
}

/**
 * The level a state names: "db.*", "db.table" or "*.*". Escaped (the default), the parts are
 * names, taken literally; unescaped, the text is SQL as the state author wrote it.
 */
export function wantedLevel(database: string, escape: boolean): Level {
  if (!escape) return readAll(database, 'database', readLevel);
  const dot = database.lastIndexOf('.');
  const db = dot < 0 ? '' : database.slice(0, dot);
  const table = database.slice(dot + 1);
  if (table === '*') return { db: db === '*' ? null : literalDbPattern(db), table: null };
  return { db: db === '*' ? null : db, table };
}

export interface ShownGrant {
  privileges: Privilege[];
  level: Level;
  user: string;
  host: string;
  grantOption: boolean;
}

function readAccountPart(c: TokenCursor): string {
  const t = c.next();
  if (t?.kind === 'name' || t?.kind === 'string' || t?.kind === 'word') return t.text;
  throw new SqlTextError('account expected');
}

function readShownGrant(c: TokenCursor): ShownGrant | null {
  if (!c.eatWord('GRANT')) return null;
  const privileges: Privilege[] = [];
  do {
    const p = readPrivilege(c, 'ON');
    if (!p) return null;
    privileges.push({ name: p.words.join(' ').toUpperCase(), columns: p.columns });
  } while (c.eatMark(','));
  if (!c.eatWord('ON')) return null; // GRANT role TO ...
  const level = readLevel(c);
  if (!c.eatWord('TO')) return null; // GRANT PROXY ON user@host TO ...
  const user = readAccountPart(c);
  if (!c.eatMark('@')) return null;
  const host = readAccountPart(c);
  return { privileges, level, user, host, grantOption: c.restHasWords('WITH', 'GRANT', 'OPTION') };
}

/** One line of SHOW GRANTS; null for a line that grants no privileges on a level (a role, PROXY) or cannot be read. */
export function parseShownGrant(line: string): ShownGrant | null {
  try {
    return readShownGrant(new TokenCursor(tokenize(line)));
  } catch (e) {
    if (e instanceof SqlTextError) return null;
    throw e;
  }
}
