/** The filters of `brine jobs` (GET /jobs). */
export interface JobQuery {
  fun?: string;
  target?: string;
  minion?: string;
  since?: string;
  until?: string;
  limit?: number;
  /** Only the jobs an orchestration's steps published (their parent_jid). */
  parent?: string;
}

/** The jobs query of `brine jobs`, for both backends: (sql with ? placeholders, params). */
export function jobsQuery(q: JobQuery): [string, unknown[]] {
  const where: string[] = [];
  const params: unknown[] = [];
  const add = (clause: string, v: unknown) => {
    where.push(clause);
    params.push(v);
  };
  if (q.fun) add('j.fun = ?', q.fun);
  if (q.target) add('j.target = ?', q.target);
  if (q.minion) add('j.jid IN (SELECT jid FROM job_minions WHERE minion = ?)', q.minion);
  if (q.since) add('j.created_at >= ?', q.since);
  if (q.until) add('j.created_at <= ?', q.until);
  if (q.parent) add('j.parent_jid = ?', q.parent);
  const sql =
    `SELECT j.*, (SELECT count(*) FROM returns r WHERE r.jid = j.jid) AS returned FROM jobs j` +
    (where.length ? ` WHERE ${where.join(' AND ')}` : '') +
    ` ORDER BY j.jid DESC LIMIT ?`;
  params.push(q.limit ?? 100);
  return [sql, params];
}

/** A page of known minions (GET /v1/minions): by id, after a cursor id or from an offset. */
export interface MinionQuery {
  /** Only minions whose id sorts after this one (the cursor of the previous page). */
  after?: string;
  offset?: number;
  limit?: number;
  /** Only these ids (a target's matches); at most a page of them. */
  ids?: string[];
}

/** The minions query for both backends: (sql with ? placeholders, params). */
export function minionsQuery(q: MinionQuery): [string, unknown[]] {
  const where: string[] = [];
  const params: unknown[] = [];
  if (q.after !== undefined) {
    where.push('minion > ?');
    params.push(q.after);
  }
  if (q.ids) {
    where.push(q.ids.length ? `minion IN (${q.ids.map(() => '?').join(', ')})` : '1 = 0');
    params.push(...q.ids);
  }
  let sql = `SELECT * FROM minions${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY minion`;
  if (q.limit !== undefined || q.offset !== undefined) {
    sql += ' LIMIT ? OFFSET ?';
    params.push(q.limit ?? 2 ** 31 - 1, q.offset ?? 0);
  }
  return [sql, params];
}

// ---- the mine: the same text on both backends ----
export const MINE_SQL = {
  put: `INSERT INTO mine (minion, fun, value, pushed_at) VALUES (?, ?, ?, ?)
        ON CONFLICT (minion, fun) DO UPDATE SET value = excluded.value, pushed_at = excluded.pushed_at`,
  clear: 'DELETE FROM mine WHERE minion = ?',
  delete: 'DELETE FROM mine WHERE minion = ? AND fun = ?',
};

/** Mine rows of some functions (every minion), or of one minion (every function). */
export function mineQuery(q: { funs?: string[]; minion?: string }): [string, unknown[]] {
  const where: string[] = [];
  const params: unknown[] = [];
  if (q.funs) {
    where.push(q.funs.length ? `fun IN (${q.funs.map(() => '?').join(', ')})` : '1 = 0');
    params.push(...q.funs);
  }
  if (q.minion !== undefined) {
    where.push('minion = ?');
    params.push(q.minion);
  }
  return [`SELECT minion, fun, value, pushed_at FROM mine${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY minion, fun`, params];
}

export function mineRowOf(r: Record<string, unknown>): { minion: string; fun: string; value: unknown; pushed_at: string } {
  return { minion: r.minion as string, fun: r.fun as string, value: JSON.parse(r.value as string), pushed_at: r.pushed_at as string };
}
