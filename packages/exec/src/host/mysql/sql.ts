/**
 * How statements are put together: fixed SQL text with mysql2's `?` where a value goes (mysql2
 * escapes each as a string literal), identifiers written into the text by quoteName. mysql2's
 * formatter skips `?` inside backtick-quoted text, so a name holding `?` stays a name.
 */

export interface Statement {
  sql: string;
  values: unknown[];
}

export function statement(sql: string, ...values: unknown[]): Statement {
  return { sql, values };
}

/**
 * A schema object name in backticks, each backtick inside doubled (the MySQL manual's
 * "Schema Object Names"). Any other character stands for itself there, newlines included;
 * a NUL, which no identifier may hold, is left for the server to refuse.
 */
export function quoteName(name: string): string {
  return '`' + name.replaceAll('`', '``') + '`';
}

/**
 * A database name as `GRANT ... ON db.*` reads it: there `_` and `%` match any character(s)
 * unless escaped with a backslash (the manual's GRANT, "Object Quoting Guidelines"), so a name
 * meant literally has them, and the backslash itself, escaped.
 */
export function literalDbPattern(name: string): string {
  return name.replace(/[\\_%]/g, (c) => `\\${c}`);
}

/** An account as `'user'@'host'`, both parts bound as values. */
export function account(user: string, host: string): Statement {
  return statement('?@?', user, host);
}

/** Statements (or fixed text) joined by spaces, their values in order. */
export function join(...parts: Array<Statement | string>): Statement {
  const out: Statement = { sql: '', values: [] };
  for (const p of parts) {
    const s = typeof p === 'string' ? { sql: p, values: [] } : p;
    if (!s.sql) continue;
    out.sql += out.sql ? ` ${s.sql}` : s.sql;
    out.values.push(...s.values);
  }
  return out;
}
