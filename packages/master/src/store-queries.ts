/** The filters of `brine jobs` (GET /jobs). */
export interface JobQuery {
  fun?: string;
  target?: string;
  minion?: string;
  since?: string;
  until?: string;
  limit?: number;
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
