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
