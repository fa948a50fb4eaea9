import type { StateResultItem } from '@brine/protocol';
import type { MasterStore } from './store.js';

/** One stored state result (a row of state_results). */
export interface StateResultRow {
  jid: string;
  minion: string;
  run_num: number;
  tag: string;
  id: string;
  name: string;
  state: string;
  fun: string;
  sls: string | null;
  result: boolean | null;
  changes: Record<string, unknown>;
  comment: string;
  start_time: string | null;
  duration: number | null;
  stored_at: string;
}

export interface StateQuery {
  minion?: string;
  /** State ID or name (`/etc/motd` matches either). */
  id?: string;
  failed?: boolean;
  changed?: boolean;
  /** Lower bound as a jid (jids sort by time). */
  sinceJid?: string;
  jid?: string;
  limit?: number;
}

export interface LastHighstate {
  minion: string;
  jid: string;
  created_at: string;
  success: boolean | null;
  states: number;
  failed: number;
  changed: number;
}

type Raw = Record<string, unknown>;

export function rowOf(r: Raw): StateResultRow {
  return {
    jid: r.jid as string,
    minion: r.minion as string,
    run_num: r.run_num as number,
    tag: r.tag as string,
    id: r.id as string,
    name: r.name as string,
    state: r.state as string,
    fun: r.fun as string,
    sls: (r.sls as string | null) ?? null,
    result: r.result === null ? null : r.result === 1,
    changes: JSON.parse(r.changes as string) as Record<string, unknown>,
    comment: r.comment as string,
    start_time: (r.start_time as string | null) ?? null,
    duration: (r.duration as number | null) ?? null,
    stored_at: r.stored_at as string,
  };
}

/** `state_|-id_|-name_|-fun` split into its parts (a name may itself contain the separator). */
export function splitTag(tag: string): { state: string; id: string; name: string; fun: string } {
  const parts = tag.split('_|-');
  if (parts.length < 4) return { state: parts[0] ?? '', id: parts[1] ?? '', name: parts[2] ?? '', fun: parts[3] ?? '' };
  return { state: parts[0]!, id: parts[1]!, name: parts.slice(2, -1).join('_|-'), fun: parts[parts.length - 1]! };
}

/** What the store and the progress events read off one state's return. */
export function normalizeResult(ret: Record<string, unknown>): {
  result: unknown;
  changes: object;
  changed: boolean;
  duration: number | null;
} {
  const changes = ret.changes && typeof ret.changes === 'object' ? ret.changes : {};
  return {
    result: ret.result ?? null,
    changes,
    changed: Object.keys(changes).length > 0,
    duration: typeof ret.duration === 'number' ? ret.duration : null,
  };
}

/** Is this job a real highstate (what "last highstate of each minion" looks at)? */
export function isHighstateJob(fun: string, arg: unknown[], kwarg: Record<string, unknown>): boolean {
  const test = kwarg.test;
  if (test === true || (typeof test === 'string' && /^true$/i.test(test))) return false;
  if (fun === 'state.highstate') return true;
  return fun === 'state.apply' && arg.length === 0 && kwarg.mods === undefined;
}

/** The `brine states` query, for both backends: (sql with ? placeholders, params). */
export function stateQuerySql(q: StateQuery): [string, unknown[]] {
  const where: string[] = [];
  const params: unknown[] = [];
  if (q.jid) {
    where.push('jid = ?');
    params.push(q.jid);
  }
  if (q.minion) {
    where.push('minion = ?');
    params.push(q.minion);
  }
  if (q.id) {
    where.push('(id = ? OR name = ?)');
    params.push(q.id, q.id);
  }
  if (q.failed) where.push('result = 0');
  if (q.changed) where.push('changed = 1');
  if (q.sinceJid) {
    where.push('jid >= ?');
    params.push(q.sinceJid);
  }
  const sql = `SELECT * FROM state_results${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY jid DESC, minion, run_num LIMIT ?`;
  params.push(q.limit ?? 1000);
  return [sql, params];
}

/** Per minion its newest highstate job it returned from, with that run's counts (both backends). */
export const LAST_HIGHSTATES_SQL = `WITH last AS (
           SELECT jm.minion AS minion, max(j.jid) AS jid FROM jobs j JOIN job_minions jm ON jm.jid = j.jid
           WHERE j.highstate = 1 AND EXISTS (SELECT 1 FROM returns r WHERE r.jid = j.jid AND r.minion = jm.minion)
           GROUP BY jm.minion
         )
         SELECT l.minion AS minion, l.jid AS jid, j.created_at AS created_at, r.success AS success,
           count(s.run_num) AS states, coalesce(sum(CASE WHEN s.result = 0 THEN 1 ELSE 0 END), 0) AS failed, coalesce(sum(s.changed), 0) AS changed
         FROM last l JOIN jobs j ON j.jid = l.jid
         LEFT JOIN returns r ON r.jid = l.jid AND r.minion = l.minion
         LEFT JOIN state_results s ON s.jid = l.jid AND s.minion = l.minion
         GROUP BY l.minion, l.jid ORDER BY l.minion`;

/** The 16 column values of one state result row, in the table's column order (both backends). */
export function stateResultValues(jid: string, minion: string, it: StateResultItem, now: string): unknown[] {
  const r = it.ret;
  const t = splitTag(it.tag);
  const n = normalizeResult(r);
  return [
    jid,
    minion,
    it.run_num,
    it.tag,
    typeof r.__id__ === 'string' ? r.__id__ : t.id,
    typeof r.name === 'string' ? r.name : t.name,
    t.state,
    t.fun,
    typeof r.__sls__ === 'string' ? r.__sls__ : null,
    n.result === true ? 1 : n.result === false ? 0 : null,
    n.changed ? 1 : 0,
    JSON.stringify(n.changes),
    typeof r.comment === 'string' ? r.comment : Array.isArray(r.comment) ? r.comment.join('\n') : JSON.stringify(r.comment ?? ''),
    typeof r.start_time === 'string' ? r.start_time : null,
    n.duration,
    now,
  ];
}

/** The state_results table: batched inserts (exactly once per run number) and the queries. */
export class StateResultStore {
  private readonly stmts;

  private readonly store: MasterStore;
  constructor(store: MasterStore) {
    this.store = store;
    const db = store.db;
    this.stmts = {
      insert: db.prepare(
        `INSERT OR IGNORE INTO state_results
         (jid, minion, run_num, tag, id, name, state, fun, sls, result, changed, changes, comment, start_time, duration, stored_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      ofJob: db.prepare('SELECT * FROM state_results WHERE jid = ? ORDER BY minion, run_num'),
      ofJobMinion: db.prepare('SELECT * FROM state_results WHERE jid = ? AND minion = ? ORDER BY run_num'),
      setHighstate: db.prepare('UPDATE jobs SET highstate = 1 WHERE jid = ?'),
      // per minion its newest highstate job it returned from, with that run's counts
      last: db.prepare(LAST_HIGHSTATES_SQL),
    };
  }

  markHighstate(jid: string): void {
    this.stmts.setHighstate.run(jid);
  }

  /** Queues the rows; `after` gets the run numbers stored (all of them, new or seen before). */
  insert(jid: string, minion: string, items: StateResultItem[], after?: () => void): void {
    const now = new Date().toISOString();
    this.store.enqueue(() => {
      for (const it of items) this.stmts.insert.run(...stateResultValues(jid, minion, it, now));
    }, after);
  }

  ofJob(jid: string, minion?: string): StateResultRow[] {
    const rows = minion === undefined ? this.stmts.ofJob.all(jid) : this.stmts.ofJobMinion.all(jid, minion);
    return (rows as Raw[]).map(rowOf);
  }

  query(q: StateQuery): StateResultRow[] {
    const [sql, params] = stateQuerySql(q);
    return (this.store.db.prepare(sql).all(...params) as Raw[]).map(rowOf);
  }

  /** The most recent real highstate each minion returned from, with its counts. */
  lastHighstates(): LastHighstate[] {
    return (this.stmts.last.all() as Array<Omit<LastHighstate, 'success'> & { success: number | null }>).map((r) => ({
      ...r,
      success: r.success === null ? null : r.success === 1,
    }));
  }
}
