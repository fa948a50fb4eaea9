import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { RetMsg, StateResultItem } from '@brine/protocol';
import { minionErrors } from './errors.js';

export type SpooledReturn = Omit<RetMsg, 'v' | 'type' | 'id'>;

/** Unacked pure returns an agent keeps in memory; beyond them they are spooled (a master that never acks). */
export const PURE_HELD_MAX = 1000;

/**
 * Results the master has not acknowledged yet. Written before the first send, deleted on ack,
 * so a return survives a master (or minion) restart and is sent again after reconnecting.
 */
export class ResultSpool {
  private readonly db: Database.Database;
  private stmts!: ReturnType<ResultSpool['prepare']>;
  /** One transaction, made once: runs the function it is given. */
  private tx!: <T>(fn: () => T) => T;
  /**
   * Acks not applied yet: their deletes join the next write's transaction (an ack and the next
   * job's admission, which the master sends in one write, are one commit) or go in the next turn.
   * Every method applies them first, so what it reads or writes sees them done.
   */
  private acked: Array<{ jid: string; nums?: number[] }> = [];
  private ackTurn: NodeJS.Immediate | undefined;
  /**
   * Whether the refusals table may hold a row: an ack forgets its job's refusals only then (a
   * statement per ack saved on every minion of a fleet, where refusals are rare).
   */
  private refusalsKept = true;
  /**
   * Pure jobs' returns not acked yet (test.ping): recomputable, so kept in memory, not in the
   * file; written to it by close() (a planned stop loses none) or when the master refuses one.
   */
  private readonly held = new Map<string, SpooledReturn>();
  private readonly heldMax: number;

  readonly file: string;
  /**
   * `onStatement`: hears every statement SQLite runs (tests count what a job costs); `heldMax`:
   * the pure returns kept in memory (PURE_HELD_MAX).
   */
  constructor(file: string, opts: { onStatement?: (sql: string) => void; heldMax?: number } = {}) {
    this.file = file;
    this.heldMax = opts.heldMax ?? PURE_HELD_MAX;
    try {
      this.db = new Database(file, opts.onStatement ? { verbose: (sql) => opts.onStatement!(String(sql)) } : {});
      this.db.pragma('journal_mode = WAL');
    } catch (err) {
      throw spoolError(file, err);
    }
    this.init();
  }

  private init(): void {
    // every table is keyed by jid: WITHOUT ROWID keeps each in one b-tree (one page written per
    // insert or delete, not the table's and its key index's); a spool made before keeps its
    // tables, which are read and written the same way
    this.db.exec(`CREATE TABLE IF NOT EXISTS spool (
      jid TEXT PRIMARY KEY, payload TEXT NOT NULL, created_at TEXT NOT NULL
    ) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS seen (jid TEXT PRIMARY KEY, at TEXT NOT NULL) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS active (jid TEXT PRIMARY KEY, fun TEXT NOT NULL, started TEXT NOT NULL) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS states (
      jid TEXT NOT NULL, run_num INTEGER NOT NULL, fun TEXT NOT NULL, payload TEXT NOT NULL,
      PRIMARY KEY (jid, run_num)
    );
    CREATE TABLE IF NOT EXISTS refusals (jid TEXT NOT NULL, kind TEXT NOT NULL, n INTEGER NOT NULL, PRIMARY KEY (jid, kind));
    DELETE FROM refusals WHERE jid NOT IN (SELECT jid FROM spool UNION SELECT jid FROM states);`);
    // a process crash keeps what WAL committed; only an OS crash could lose the last results
    this.db.pragma('synchronous = NORMAL');
    this.stmts = this.prepare();
    const run = this.db.transaction((fn: () => unknown) => fn());
    this.tx = <T>(fn: () => T): T => run(fn) as T;
    this.stmts.pruneSeen.run(new Date(Date.now() - 7 * 86400_000).toISOString());
    this.refusalsKept = this.db.prepare('SELECT 1 FROM refusals LIMIT 1').get() !== undefined;
  }

  private prepare() {
    return {
      put: this.db.prepare('INSERT OR REPLACE INTO spool (jid, payload, created_at) VALUES (?, ?, ?)'),
      del: this.db.prepare('DELETE FROM spool WHERE jid = ?'),
      all: this.db.prepare('SELECT jid, payload FROM spool ORDER BY jid'),
      one: this.db.prepare('SELECT jid, payload FROM spool WHERE jid = ?'),
      count: this.db.prepare('SELECT count(*) AS n FROM spool'),
      seen: this.db.prepare('INSERT OR IGNORE INTO seen (jid, at) VALUES (?, ?)'),
      pruneSeen: this.db.prepare('DELETE FROM seen WHERE at < ?'),
      statePut: this.db.prepare('INSERT OR REPLACE INTO states (jid, run_num, fun, payload) VALUES (?, ?, ?, ?)'),
      stateDel: this.db.prepare('DELETE FROM states WHERE jid = ? AND run_num = ?'),
      stateAll: this.db.prepare('SELECT jid, run_num, fun, payload FROM states ORDER BY jid, run_num'),
      stateOf: this.db.prepare('SELECT jid, run_num, fun, payload FROM states WHERE jid = ? ORDER BY run_num'),
      refuse: this.db.prepare('INSERT INTO refusals (jid, kind, n) VALUES (?, ?, 1) ON CONFLICT (jid, kind) DO UPDATE SET n = n + 1 RETURNING n'),
      refusalDel: this.db.prepare('DELETE FROM refusals WHERE jid = ? AND kind = ?'),
      stateCount: this.db.prepare('SELECT count(*) AS n FROM states'),
      stateDrop: this.db.prepare('DELETE FROM states WHERE jid = ?'),
      activePut: this.db.prepare('INSERT OR REPLACE INTO active (jid, fun, started) VALUES (?, ?, ?)'),
      activeDel: this.db.prepare('DELETE FROM active WHERE jid = ?'),
      activeAll: this.db.prepare('SELECT jid, fun, started FROM active ORDER BY jid'),
      has: this.db.prepare('SELECT 1 FROM spool WHERE jid = ?'),
    };
  }

  put(ret: SpooledReturn): void {
    // a held return refitted for a new master stays held
    if (this.held.has(ret.jid)) {
      this.held.set(ret.jid, ret);
      return;
    }
    this.applyAcks();
    this.stmts.put.run(ret.jid, JSON.stringify(ret), new Date().toISOString());
  }

  /** Records a job as running, so a minion killed during it can say so when it comes back. */
  begin(jid: string, fun: string, started: string): void {
    this.applyAcks();
    this.stmts.activePut.run(jid, fun, started);
  }

  /**
   * A job about to run: recorded as received and as running in one transaction (with the acks
   * waiting); false when it was received before (then nothing is recorded).
   */
  admit(jid: string, fun: string, started: string): boolean {
    return this.tx(() => {
      this.applyAcks();
      if (this.stmts.seen.run(jid, started).changes === 0) return false;
      this.stmts.activePut.run(jid, fun, started);
      return true;
    });
  }

  /**
   * A job run within its admission (a pure function, test.ping): recorded as received with its
   * return, made by `make`, in one transaction (with the acks waiting) and never as running;
   * undefined when it was received before (then nothing is recorded and `make` is not called).
   */
  admitFinished(jid: string, at: string, make: () => SpooledReturn): SpooledReturn | undefined {
    return this.tx(() => {
      this.applyAcks();
      if (this.stmts.seen.run(jid, at).changes === 0) return undefined;
      const ret = make();
      this.put(ret);
      return ret;
    });
  }

  /**
   * A pure job's return, made by `make`: held in memory until acked, no statement run (a job
   * received twice runs again: the same answer, stored once by the master); beyond `heldMax`
   * held, spooled with its received mark as admitFinished does (undefined when seen before).
   */
  hold(jid: string, at: string, make: () => SpooledReturn): SpooledReturn | undefined {
    if (this.held.size >= this.heldMax && !this.held.has(jid)) return this.admitFinished(jid, at, make);
    const ret = make();
    this.held.set(jid, ret);
    return ret;
  }

  /** Spools a job's return and forgets it was running, in one transaction. */
  finish(ret: SpooledReturn): void {
    this.tx(() => {
      this.put(ret);
      this.stmts.activeDel.run(ret.jid);
    });
  }

  /**
   * Jobs recorded as running by a previous process that never finished them: each becomes the
   * return `make` builds (spooled, so it goes to the master like any other) and is forgotten.
   */
  recoverInterrupted(make: (job: { jid: string; fun: string; started: string }) => SpooledReturn): SpooledReturn[] {
    const out: SpooledReturn[] = [];
    this.applyAcks();
    this.tx(() => {
      for (const job of this.stmts.activeAll.all() as Array<{ jid: string; fun: string; started: string }>) {
        this.stmts.activeDel.run(job.jid);
        if (this.stmts.has.get(job.jid)) continue;
        const ret = make(job);
        this.put(ret);
        out.push(ret);
      }
    });
    return out;
  }

  /** Forgets everything spooled for a job the master refuses for good. */
  drop(jid: string): { ret: boolean; states: number } {
    let ret = false;
    let states = 0;
    this.tx(() => {
      this.applyAcks();
      const held = this.held.delete(jid);
      ret = this.stmts.del.run(jid).changes > 0 || held;
      states = this.stmts.stateDrop.run(jid).changes;
    });
    return { ret, states };
  }

  /** The master stored the job's return: deleted with the next write, or in the next turn. */
  ack(jid: string): void {
    if (!this.held.delete(jid)) this.queueAck({ jid });
  }

  private queueAck(a: { jid: string; nums?: number[] }): void {
    this.acked.push(a);
    this.ackTurn ??= setImmediate(() => {
      this.ackTurn = undefined;
      try {
        this.applyAcks();
      } catch {
        // the items stay spooled: they are sent again after a reconnect and acked again
      }
    });
  }

  /**
   * Applies the acks waiting: inside the caller's transaction when it has one (no savepoint:
   * a failure undoes that whole transaction anyway), a lone return's ack as one statement (its
   * own commit), else in a transaction of their own.
   */
  private applyAcks(): void {
    if (this.acked.length === 0) return;
    const acked = this.acked;
    this.acked = [];
    if (this.db.inTransaction) this.deleteAcked(acked);
    else if (acked.length === 1 && acked[0]!.nums === undefined && !this.refusalsKept) this.stmts.del.run(acked[0]!.jid);
    else this.tx(() => this.deleteAcked(acked));
  }

  private deleteAcked(acked: Array<{ jid: string; nums?: number[] }>): void {
    for (const a of acked) {
      if (a.nums === undefined) {
        this.stmts.del.run(a.jid);
        if (this.refusalsKept) this.stmts.refusalDel.run(a.jid, 'ret');
      } else for (const n of a.nums) this.stmts.stateDel.run(a.jid, n);
    }
  }

  /**
   * Unacked returns, spooled and held, in jid order; a row that does not parse as one goes to
   * `bad` instead (to be quarantined).
   */
  pending(bad?: (jid: string, why: string) => void): SpooledReturn[] {
    this.applyAcks();
    const rets = parseRows(this.stmts.all.all() as Row[], bad) as SpooledReturn[];
    if (this.held.size === 0) return rets;
    const spooled = new Set(rets.map((r) => r.jid));
    for (const r of this.held.values()) if (!spooled.has(r.jid)) rets.push(r);
    return rets.sort((a, b) => (a.jid < b.jid ? -1 : a.jid > b.jid ? 1 : 0));
  }

  /** The unacked return of one job. */
  pendingOf(jid: string, bad?: (jid: string, why: string) => void): SpooledReturn | undefined {
    const held = this.held.get(jid);
    if (held) return held;
    this.applyAcks();
    return parseRows(this.stmts.one.all(jid) as Row[], bad)[0] as SpooledReturn | undefined;
  }

  /** Unacked returns, spooled and held. */
  size(): number {
    this.applyAcks();
    return (this.stmts.count.get() as { n: number }).n + this.held.size;
  }

  /** Pure returns held in memory (not in the file). */
  heldSize(): number {
    return this.held.size;
  }

  /** Records a jid as received; false when it was seen before (a job runs at most once). */
  markSeen(jid: string): boolean {
    return this.tx(() => {
      this.applyAcks();
      return this.stmts.seen.run(jid, new Date().toISOString()).changes > 0;
    });
  }

  /** Keeps streamed state results until the master acknowledges them (one transaction). */
  putStates(jid: string, fun: string, items: StateResultItem[]): void {
    this.tx(() => {
      this.applyAcks();
      for (const it of items) this.stmts.statePut.run(jid, it.run_num, fun, JSON.stringify(it));
    });
  }

  /** The master stored these state results: deleted like an ack's return. */
  ackStates(jid: string, nums: number[]): void {
    this.queueAck({ jid, nums });
  }

  /**
   * Unacknowledged state results, grouped by job (of one job with `jid`); a row that does not
   * parse as one goes to `bad` instead, with its run number.
   */
  pendingStates(bad?: (jid: string, why: string, runNum: number) => void, jid?: string): Array<{ jid: string; fun: string; results: StateResultItem[] }> {
    this.applyAcks();
    const out = new Map<string, { jid: string; fun: string; results: StateResultItem[] }>();
    const rows = (jid === undefined ? this.stmts.stateAll.all() : this.stmts.stateOf.all(jid)) as Array<Row & { run_num: number; fun: string }>;
    for (const r of rows) {
      const item = parseRows([r], bad ? (j, why) => bad(j, why, r.run_num) : undefined, isStateItem)[0] as StateResultItem | undefined;
      if (!item) continue;
      let g = out.get(r.jid);
      if (!g) out.set(r.jid, (g = { jid: r.jid, fun: r.fun, results: [] }));
      g.results.push(item);
    }
    return [...out.values()];
  }

  /** Counts one more refusal of a job's `ret` or `state_results` by the master; returns the count. */
  refused(jid: string, kind: 'ret' | 'state_results'): number {
    this.applyAcks();
    this.refusalsKept = true;
    return (this.stmts.refuse.get(jid, kind) as { n: number }).n;
  }

  /**
   * Moves a job's spooled return (`ret`), or its state results (all, or those of `runNums`),
   * out of the spool into a file of `spool-quarantine/` beside spool.db, with the reason: what
   * the master refuses for good is never sent again, and nothing is lost. Returns the file.
   */
  quarantine(jid: string, kind: 'ret' | 'state_results', reason: string, runNums?: number[]): string {
    if (kind === 'ret') this.spill([jid]);
    this.applyAcks();
    const dir = path.join(path.dirname(this.file), 'spool-quarantine');
    const at = new Date().toISOString();
    const file = path.join(dir, `${jid.replace(/[^0-9A-Za-z_-]/g, '_').slice(0, 64)}-${kind}-${at.replace(/[:.]/g, '')}.json`);
    this.db.transaction(() => {
      let rows: Array<Row & { run_num?: number }> =
        kind === 'ret' ? (this.stmts.one.all(jid) as Row[]) : (this.stmts.stateOf.all(jid) as Array<Row & { run_num: number }>);
      if (runNums) rows = rows.filter((r) => runNums.includes(r.run_num!));
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      writeFileSync(file, JSON.stringify({ jid, kind, reason, quarantined_at: at, items: rows.map((r) => r.payload) }, null, 1) + '\n', { mode: 0o600 });
      if (kind === 'ret') this.stmts.del.run(jid);
      else for (const r of rows) this.stmts.stateDel.run(jid, r.run_num);
      this.stmts.refusalDel.run(jid, kind);
    })();
    return file;
  }

  stateSize(): number {
    this.applyAcks();
    return (this.stmts.stateCount.get() as { n: number }).n;
  }

  /** Writes held returns (all, or those of `jids`) to the file, in one transaction. */
  private spill(jids: Iterable<string> = [...this.held.keys()]): void {
    const rets = [...jids].flatMap((j) => this.held.get(j) ?? []);
    if (rets.length === 0) return;
    const at = new Date().toISOString();
    this.tx(() => {
      for (const r of rets) this.stmts.put.run(r.jid, JSON.stringify(r), at);
    });
    for (const r of rets) this.held.delete(r.jid);
  }

  /** Closes the file, the held returns written to it first: a planned stop loses none. */
  close(): void {
    if (this.ackTurn) clearImmediate(this.ackTurn);
    this.ackTurn = undefined;
    try {
      this.applyAcks();
      this.spill();
    } finally {
      this.db.close();
    }
  }
}

interface Row {
  jid: string;
  payload: string;
}

const isReturn = (v: Record<string, unknown>): boolean => typeof v.fun === 'string';
const isStateItem = (v: Record<string, unknown>): boolean => typeof v.tag === 'string' && typeof v.ret === 'object' && v.ret !== null;

/** Spooled payloads parsed; one that is not JSON, not an object or not of its job is reported. */
function parseRows(rows: Row[], bad?: (jid: string, why: string) => void, shape = isReturn): unknown[] {
  const out: unknown[] = [];
  for (const r of rows) {
    let v: unknown;
    try {
      v = JSON.parse(r.payload);
    } catch (err) {
      bad?.(r.jid, `not JSON: ${(err as Error).message}`);
      continue;
    }
    const o = v as Record<string, unknown>;
    if (typeof v !== 'object' || v === null || Array.isArray(v) || !shape(o) || (shape === isReturn && o.jid !== r.jid)) {
      bad?.(r.jid, 'not a spooled result of this job');
      continue;
    }
    out.push(v);
  }
  return out;
}

function spoolError(file: string, err: unknown): Error {
  if ((err as { code?: string }).code === 'BRINE_ERR_MINION_SPOOL') return err as Error;
  return minionErrors.make('BRINE_ERR_MINION_SPOOL', { file, detail: (err as Error).message });
}

// Every spool operation touches spool.db: an SQLite error (a full disk, a damaged file) is
// reported with that file's path, so the operator knows which file to look at.
for (const name of Object.getOwnPropertyNames(ResultSpool.prototype)) {
  const fn = (ResultSpool.prototype as unknown as Record<string, unknown>)[name];
  if (name === 'constructor' || typeof fn !== 'function') continue;
  Object.defineProperty(ResultSpool.prototype, name, {
    value: function (this: ResultSpool, ...args: unknown[]) {
      try {
        return (fn as (...a: unknown[]) => unknown).apply(this, args);
      } catch (err) {
        throw spoolError(this.file, err);
      }
    },
  });
}
