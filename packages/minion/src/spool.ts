import Database from 'better-sqlite3';
import type { RetMsg, StateResultItem } from '@brine/protocol';

export type SpooledReturn = Omit<RetMsg, 'v' | 'type' | 'id'>;

/**
 * Results the master has not acknowledged yet. Written before the first send, deleted on ack,
 * so a return survives a master (or minion) restart and is sent again after reconnecting.
 */
export class ResultSpool {
  private readonly db: Database.Database;
  private readonly stmts;

  constructor(file: string) {
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.exec(`CREATE TABLE IF NOT EXISTS spool (
      jid TEXT PRIMARY KEY, payload TEXT NOT NULL, created_at TEXT NOT NULL
    );
    CREATE TABLE IF NOT EXISTS seen (jid TEXT PRIMARY KEY, at TEXT NOT NULL);
    CREATE TABLE IF NOT EXISTS states (
      jid TEXT NOT NULL, run_num INTEGER NOT NULL, fun TEXT NOT NULL, payload TEXT NOT NULL,
      PRIMARY KEY (jid, run_num)
    );`);
    // a process crash keeps what WAL committed; only an OS crash could lose the last results
    this.db.pragma('synchronous = NORMAL');
    this.stmts = {
      put: this.db.prepare('INSERT OR REPLACE INTO spool (jid, payload, created_at) VALUES (?, ?, ?)'),
      del: this.db.prepare('DELETE FROM spool WHERE jid = ?'),
      all: this.db.prepare('SELECT payload FROM spool ORDER BY jid'),
      count: this.db.prepare('SELECT count(*) AS n FROM spool'),
      seen: this.db.prepare('INSERT OR IGNORE INTO seen (jid, at) VALUES (?, ?)'),
      pruneSeen: this.db.prepare('DELETE FROM seen WHERE at < ?'),
      statePut: this.db.prepare('INSERT OR REPLACE INTO states (jid, run_num, fun, payload) VALUES (?, ?, ?, ?)'),
      stateDel: this.db.prepare('DELETE FROM states WHERE jid = ? AND run_num = ?'),
      stateAll: this.db.prepare('SELECT jid, fun, payload FROM states ORDER BY jid, run_num'),
      stateCount: this.db.prepare('SELECT count(*) AS n FROM states'),
    };
    this.stmts.pruneSeen.run(new Date(Date.now() - 7 * 86400_000).toISOString());
  }

  put(ret: SpooledReturn): void {
    this.stmts.put.run(ret.jid, JSON.stringify(ret), new Date().toISOString());
  }

  ack(jid: string): void {
    this.stmts.del.run(jid);
  }

  pending(): SpooledReturn[] {
    return (this.stmts.all.all() as Array<{ payload: string }>).map((r) => JSON.parse(r.payload) as SpooledReturn);
  }

  size(): number {
    return (this.stmts.count.get() as { n: number }).n;
  }

  /** Records a jid as received; false when it was seen before (a job runs at most once). */
  markSeen(jid: string): boolean {
    return this.stmts.seen.run(jid, new Date().toISOString()).changes > 0;
  }

  /** Keeps streamed state results until the master acknowledges them (one transaction). */
  putStates(jid: string, fun: string, items: StateResultItem[]): void {
    this.db.transaction(() => {
      for (const it of items) this.stmts.statePut.run(jid, it.run_num, fun, JSON.stringify(it));
    })();
  }

  ackStates(jid: string, nums: number[]): void {
    this.db.transaction(() => {
      for (const n of nums) this.stmts.stateDel.run(jid, n);
    })();
  }

  /** Unacknowledged state results, grouped by job. */
  pendingStates(): Array<{ jid: string; fun: string; results: StateResultItem[] }> {
    const out = new Map<string, { jid: string; fun: string; results: StateResultItem[] }>();
    for (const r of this.stmts.stateAll.all() as Array<{ jid: string; fun: string; payload: string }>) {
      let g = out.get(r.jid);
      if (!g) out.set(r.jid, (g = { jid: r.jid, fun: r.fun, results: [] }));
      g.results.push(JSON.parse(r.payload) as StateResultItem);
    }
    return [...out.values()];
  }

  stateSize(): number {
    return (this.stmts.stateCount.get() as { n: number }).n;
  }

  close(): void {
    this.db.close();
  }
}
