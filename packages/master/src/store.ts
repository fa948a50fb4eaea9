import { existsSync, statSync } from 'node:fs';
import Database from 'better-sqlite3';
import type { KeyState, RetMsg } from '@brine/protocol';
import { masterErrors } from './errors.js';
import { MIGRATIONS } from './migrations.js';
import { isoNow } from './iso-now.js';
import { jobsQuery, minionsQuery, type JobQuery, type MinionQuery } from './store-queries.js';
import { WalCheckpointer } from './store-checkpoint.js';

export interface KeyRow {
  minion: string;
  pub: string;
  fingerprint: string;
  state: KeyState;
  created_at: string;
  updated_at: string;
}

export interface MinionRow {
  minion: string;
  grains: Record<string, unknown>;
  last_seen: string | null;
  first_seen: string;
}

export interface JobRow {
  jid: string;
  fun: string;
  arg: unknown[];
  kwarg: Record<string, unknown>;
  target: string | string[];
  tgt_type: string;
  user: string;
  batch: string | null;
  created_at: string;
  expected: string[];
  /** The content hash of the state and pillar trees the job was published with (a cluster checks it). */
  tree_hash?: string | null;
  /** The orchestration whose step published this job. */
  parent_jid?: string | null;
}

/** A minion's return as stored: what it sent, who sent it and when it was committed. */
export type ReturnRow = Omit<RetMsg, 'v' | 'id' | 'type'> & { minion: string; stored_at: string };

export type { JobQuery, MinionQuery };

export type Raw = Record<string, unknown>;

export function jobFromRow(r: Raw): JobRow {
  const args = JSON.parse(r.args as string) as { arg: unknown[]; kwarg: Record<string, unknown> };
  const target = r.target as string;
  return {
    jid: r.jid as string,
    fun: r.fun as string,
    arg: args.arg,
    kwarg: args.kwarg,
    target: target.startsWith('[') ? (JSON.parse(target) as string[]) : target,
    tgt_type: r.tgt_type as string,
    user: r.user as string,
    batch: (r.batch as string | null) ?? null,
    created_at: r.created_at as string,
    expected: JSON.parse(r.expected as string) as string[],
    tree_hash: (r.tree_hash as string | null | undefined) ?? null,
    parent_jid: (r.parent_jid as string | null | undefined) ?? null,
  };
}

export function minionFromRow(r: Raw): MinionRow {
  return {
    minion: r.minion as string,
    grains: JSON.parse(r.grains as string) as Record<string, unknown>,
    last_seen: (r.last_seen as string | null) ?? null,
    first_seen: r.first_seen as string,
  };
}

/**
 * A return as stored, its value still the JSON text it was written as: a report sent on (the API)
 * splices that text in, where parsing 10,000 highstates only to write them out again took the
 * master's loop hundreds of ms and filled its heap (bench/fleet.mjs 10000 20).
 */
export type StoredReturn = Omit<ReturnRow, 'return'> & { returnJson: string };

export function storedReturnFromRow(r: Raw): StoredReturn {
  return {
    jid: r.jid as string,
    minion: r.minion as string,
    fun: r.fun as string,
    success: r.success === 1,
    retcode: r.retcode as number,
    returnJson: r.ret as string,
    started: r.started as string,
    finished: r.finished as string,
    stored_at: r.stored_at as string,
  };
}

/** A stored return with its value parsed (the in-process readers: orchestration, tests). */
export function parseStoredReturn(r: StoredReturn): ReturnRow {
  return {
    jid: r.jid,
    minion: r.minion,
    fun: r.fun,
    success: r.success,
    retcode: r.retcode,
    return: JSON.parse(r.returnJson),
    started: r.started,
    finished: r.finished,
    stored_at: r.stored_at,
  };
}

export function returnFromRow(r: Raw): ReturnRow {
  return parseStoredReturn(storedReturnFromRow(r));
}

/**
 * A missing or 0-byte store where this master has run before (its certificate, API token or
 * store marker exist) is a lost or truncated store, not a new master: SQLite would silently start
 * an empty one and every key would be gone. `allowNew` (--new-store) begins one deliberately.
 */
export function refuseLostStore(file: string, earlierState: string[], allowNew = false): void {
  const missing = !existsSync(file);
  if (allowNew || (!missing && statSync(file).size !== 0)) return;
  const evidence = earlierState.filter((p) => existsSync(p));
  if (evidence.length === 0) return;
  throw masterErrors.make(missing ? 'BRINE_ERR_MASTER_STORE_MISSING' : 'BRINE_ERR_MASTER_STORE_EMPTY', { file, evidence: evidence.join(', ') });
}

/** SQLite's codes for a file that is not, or no longer, a sound database. */
function damaged(err: unknown): boolean {
  const code = (err as { code?: string }).code ?? '';
  return code === 'SQLITE_CORRUPT' || code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_CORRUPT');
}

const noop = (): void => undefined;

function corrupt(file: string, err: unknown): Error {
  return masterErrors.make('BRINE_ERR_MASTER_STORE_CORRUPT', { file, detail: (err as Error).message });
}

/**
 * The master's SQLite store (WAL). One writer: the master process. Hot writes (returns, events,
 * last-seen) are queued and committed together in one transaction per tick; whoever must not act
 * before the data is durable passes an `after` callback, run once the batch has committed.
 */
export class MasterStore {
  readonly db: Database.Database;
  /** Queued writes, each with what runs once it is committed. */
  private queue: Array<{ write: () => void; after: (() => void) | undefined }> = [];
  private scheduled = false;
  /** The group commit's timer (set while queued writes wait for the window). */
  private grouping: NodeJS.Timeout | undefined;
  private lastCommit = -Infinity;
  /**
   * At most one commit per this many ms: a fleet's returns arrive a few per turn, and each commit
   * writes every page it touched (tables and indexes) to the WAL, so a burst goes in a few large
   * commits rather than hundreds of small ones. A write after a quiet spell commits in the next turn.
   */
  groupMs = 10;
  /** Longest a turn of the event loop spends committing queued writes (see `commit`). */
  turnMs = 10;
  /**
   * Callbacks of committed writes run at most this many a turn: each resumes a promise whose
   * work (a return's ack, its event, the job's bookkeeping) runs in the same turn, and a commit
   * of a fleet's returns held the loop as long again as its writes.
   */
  afterPerTurn = 100;
  /** Callbacks of committed writes not run yet, in commit order, from `afterHead` on. */
  private afters: Array<() => void> = [];
  private afterHead = 0;
  private afterTurn: NodeJS.Immediate | undefined;
  private closed = false;
  private readonly stmts;
  /** WAL checkpoints, off the event loop (this connection never checkpoints while open). */
  readonly checkpoints: WalCheckpointer;

  readonly file: string;
  constructor(file: string) {
    this.file = file;
    try {
      this.db = new Database(file);
      this.db.pragma('journal_mode = WAL');
      this.db.pragma('synchronous = NORMAL');
      this.db.pragma('foreign_keys = ON');
      this.db.pragma('busy_timeout = 5000');
      this.checkpoints = new WalCheckpointer(file, this.db);
    } catch (err) {
      throw damaged(err) ? corrupt(file, err) : masterErrors.make('BRINE_ERR_MASTER_STORE', { file, detail: (err as Error).message });
    }
    // A damaged page found now beats an exception in the middle of a highstate.
    let check: string;
    try {
      check = (this.db.pragma('quick_check', { simple: true }) as string) ?? 'ok';
    } catch (err) {
      this.db.close();
      throw corrupt(file, err);
    }
    if (check !== 'ok') {
      this.db.close();
      throw masterErrors.make('BRINE_ERR_MASTER_STORE_CORRUPT', { file, detail: `integrity check: ${check}` });
    }
    try {
      this.migrate();
    } catch (err) {
      throw masterErrors.make('BRINE_ERR_MASTER_STORE', { file, detail: (err as Error).message });
    }
    const db = this.db;
    this.stmts = {
      keysOf: db.prepare('SELECT * FROM keys WHERE minion = ? ORDER BY created_at'),
      keyAll: db.prepare('SELECT * FROM keys ORDER BY state, minion'),
      keyInsert: db.prepare('INSERT INTO keys (minion, pub, fingerprint, state, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING'),
      keySetState: db.prepare('UPDATE keys SET state = ?, updated_at = ? WHERE minion = ? AND fingerprint = ?'),
      keyDelete: db.prepare('DELETE FROM keys WHERE minion = ? AND fingerprint = ?'),
      minionUpsert: db.prepare(
        `INSERT INTO minions (minion, grains, last_seen, first_seen) VALUES (?, ?, ?, ?)
         ON CONFLICT (minion) DO UPDATE SET grains = excluded.grains, last_seen = excluded.last_seen`,
      ),
      minionSeen: db.prepare('UPDATE minions SET last_seen = ? WHERE minion = ?'),
      minionAll: db.prepare('SELECT * FROM minions ORDER BY minion'),
      minionCount: db.prepare('SELECT count(*) AS n FROM minions'),
      minionGrains: db.prepare('SELECT grains FROM minions WHERE minion = ?'),
      minionDelete: db.prepare('DELETE FROM minions WHERE minion = ?'),
      jobInsert: db.prepare(
        `INSERT INTO jobs (jid, fun, args, target, tgt_type, user, batch, created_at, expected, tree_hash, parent_jid)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      jobMinionsInsert: db.prepare('INSERT OR IGNORE INTO job_minions (jid, minion) SELECT ?, value FROM json_each(?)'),
      jobGet: db.prepare('SELECT * FROM jobs WHERE jid = ?'),
      jobExpects: db.prepare('SELECT 1 FROM job_minions WHERE jid = ? AND minion = ?'),
      lastJid: db.prepare('SELECT max(jid) AS jid FROM jobs'),
      retInsert: db.prepare(
        `INSERT OR IGNORE INTO returns (jid, minion, fun, success, retcode, ret, started, finished, stored_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      retOf: db.prepare('SELECT * FROM returns WHERE jid = ? ORDER BY minion'),
      retPage: db.prepare('SELECT * FROM returns WHERE jid = ? AND minion > ? ORDER BY minion LIMIT ?'),
      retCount: db.prepare('SELECT count(*) AS n FROM returns WHERE jid = ?'),
      eventInsert: db.prepare('INSERT INTO events (tag, data, created_at, origin) VALUES (?, ?, ?, ?)'),
      pruneJobs: db.prepare('DELETE FROM jobs WHERE created_at < ?'),
      pruneEvents: db.prepare('DELETE FROM events WHERE created_at < ?'),
    };
  }

  private migrate(): void {
    const current = this.db.pragma('user_version', { simple: true }) as number;
    for (let v = current; v < MIGRATIONS.length; v++) {
      this.db.transaction(() => {
        this.db.exec(MIGRATIONS[v]!);
        this.db.pragma(`user_version = ${v + 1}`);
      })();
    }
  }

  get schemaVersion(): number {
    return this.db.pragma('user_version', { simple: true }) as number;
  }

  // ---- write batching ----------------------------------------------------------------

  /** Queues a write; `after` runs once it is committed. */
  enqueue(write: () => void, after?: () => void): void {
    if (this.closed) return;
    this.queue.push({ write, after });
    this.schedule();
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    const wait = this.lastCommit + this.groupMs - performance.now();
    if (wait <= 0) setImmediate(() => this.commit(this.turnMs));
    else this.grouping = setTimeout(() => this.commit(this.turnMs), wait);
  }

  /**
   * Resolves once every write queued before the call is committed: what a reader that must see
   * them awaits. Unlike `flush` it commits a turn's budget at a time (a reconnect storm queues
   * thousands of grains and returns: one commit of all of them would hold the event loop for
   * hundreds of milliseconds), and at once, not after the group commit's window. While a failed
   * batch waits for its retry the reader goes on without it, as with `flush`.
   */
  drain(): Promise<void> {
    if (this.queue.length === 0 || this.retryTimer || this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      this.drains.add(resolve);
      this.queue.push({ write: () => undefined, after: () => this.drains.delete(resolve) && resolve() });
      if (this.grouping) {
        clearTimeout(this.grouping);
        this.grouping = undefined;
        this.scheduled = false;
      }
      if (this.scheduled) return;
      this.scheduled = true;
      setImmediate(() => this.commit(this.turnMs));
    });
  }

  /**
   * Called when a batch fails to commit (a full disk, a busy or damaged database): the master
   * logs it. The batch stays queued and is retried with backoff; its callbacks (the acks to
   * minions) run only after it commits, so nothing is acknowledged that is not stored.
   */
  onWriteError: (err: Error, info: { writes: number; retryMs: number }) => void = () => undefined;
  onWriteTime: (seconds: number) => void = () => undefined;
  private retryMs = 0;
  private retryTimer: NodeJS.Timeout | undefined;
  /** Readers waiting in `drain`: a failed commit lets them go on, as `flush` would. */
  private readonly drains = new Set<() => void>();

  /** Commits every queued write in one transaction, then runs every callback waiting. */
  flush(): void {
    this.commit(Infinity);
    this.runAfters(Infinity);
  }

  /**
   * Commits queued writes in one transaction, then their callbacks (`afterPerTurn` a turn). A turn of the event loop
   * writes for at most `budgetMs` (a burst of 10,000 returns must not hold the loop): what is
   * left commits in the next turn.
   */
  private commit(budgetMs: number): void {
    this.scheduled = false;
    if (this.grouping) clearTimeout(this.grouping);
    this.grouping = undefined;
    if (this.retryTimer) return; // a failed batch waits for its retry; new writes join it
    if (this.queue.length === 0) return;
    const writes = this.queue;
    this.queue = [];
    let done = writes.length;
    if (!this.closed) {
      try {
        const t0 = performance.now();
        this.db.transaction(() => {
          for (let i = 0; i < writes.length; i++) {
            writes[i]!.write();
            if ((i & 31) === 31 && performance.now() - t0 > budgetMs) {
              done = i + 1;
              break;
            }
          }
        })();
        this.lastCommit = performance.now();
        this.onWriteTime((this.lastCommit - t0) / 1000);
        this.checkpoints.maybe();
      } catch (err) {
        // Rolled back as a whole: put the batch back in front of what came since and retry.
        this.queue = writes.concat(this.queue);
        this.retryMs = Math.min(this.retryMs ? this.retryMs * 2 : 100, 5000);
        const e = masterErrors.make('BRINE_ERR_MASTER_STORE_WRITE', {
          file: this.file,
          writes: writes.length,
          detail: (err as Error).message,
          retry_ms: this.retryMs,
        });
        this.onWriteError(e, { writes: writes.length, retryMs: this.retryMs });
        for (const go of this.drains) go();
        this.drains.clear();
        this.retryTimer = setTimeout(() => {
          this.retryTimer = undefined;
          this.flush();
        }, this.retryMs);
        this.retryTimer.unref?.();
        return;
      }
    }
    this.retryMs = 0;
    if (done < writes.length) {
      // the rest of a burst cut by the turn's budget goes on in the next turn
      this.queue = writes.slice(done).concat(this.queue);
      this.scheduled = true;
      setImmediate(() => this.commit(this.turnMs));
    }
    for (let i = 0; i < done; i++) {
      const after = writes[i]!.after;
      if (after) this.afters.push(after);
    }
    this.runAfters(this.afterPerTurn);
  }

  /** Runs up to `max` waiting callbacks, oldest first; the rest go on in the next turns. */
  private runAfters(max: number): void {
    if (this.afterTurn) clearImmediate(this.afterTurn);
    this.afterTurn = undefined;
    try {
      // a callback may flush (and run the rest itself): the list is read afresh each time
      for (let n = 0; n < max && this.afterHead < this.afters.length; n++) {
        const after = this.afters[this.afterHead]!;
        this.afters[this.afterHead++] = noop;
        after();
      }
    } finally {
      if (this.afterHead < this.afters.length) this.afterTurn ??= setImmediate(() => this.runAfters(this.afterPerTurn));
      else {
        this.afters = [];
        this.afterHead = 0;
      }
    }
  }

  close(): void {
    if (this.closed) return;
    if (this.retryTimer) {
      clearTimeout(this.retryTimer);
      this.retryTimer = undefined;
    }
    try {
      this.flush();
    } catch {
      // the batch could not commit; the minions still hold it in their spools
    }
    this.closed = true;
    // the worker's connection first: the last one to close checkpoints the WAL and removes it
    this.checkpoints.close();
    this.db.close();
  }

  // ---- keys --------------------------------------------------------------------------

  keysOf(minion: string): KeyRow[] {
    return this.stmts.keysOf.all(minion) as KeyRow[];
  }

  listKeys(): KeyRow[] {
    return this.stmts.keyAll.all() as KeyRow[];
  }

  /** False when the row was not added: this key is there already, or the id has another live key. */
  insertKey(minion: string, pub: string, fingerprint: string, state: KeyState): boolean {
    const now = new Date().toISOString();
    return this.stmts.keyInsert.run(minion, pub, fingerprint, state, now, now).changes > 0;
  }

  setKeyState(minion: string, fingerprint: string, state: KeyState): void {
    this.stmts.keySetState.run(state, new Date().toISOString(), minion, fingerprint);
  }

  deleteKey(minion: string, fingerprint: string): void {
    this.db.transaction(() => {
      this.stmts.keyDelete.run(minion, fingerprint);
      if (this.keysOf(minion).length === 0) this.stmts.minionDelete.run(minion);
    })();
  }

  // ---- minions -----------------------------------------------------------------------

  saveGrains(minion: string, grains: Record<string, unknown>, after?: () => void): void {
    const now = isoNow();
    this.enqueue(() => this.stmts.minionUpsert.run(minion, JSON.stringify(grains), now, now), after);
  }

  touchMinion(minion: string, after?: () => void): void {
    const now = isoNow();
    this.enqueue(() => this.stmts.minionSeen.run(now, minion), after);
  }

  /** Known minions by id; a query picks a page of them. */
  listMinions(q?: MinionQuery): MinionRow[] {
    const [sql, params] = q ? minionsQuery(q) : [];
    const rows = sql ? this.db.prepare(sql).all(...params!) : this.stmts.minionAll.all();
    return (rows as Raw[]).map(minionFromRow);
  }

  countMinions(): number {
    return (this.stmts.minionCount.get() as { n: number }).n;
  }

  /** The grains last stored for one minion (undefined when it never reported any). */
  grainsOf(minion: string): Record<string, unknown> | undefined {
    const r = this.stmts.minionGrains.get(minion) as { grains: string } | undefined;
    return r ? (JSON.parse(r.grains) as Record<string, unknown>) : undefined;
  }

  // ---- jobs --------------------------------------------------------------------------

  lastJid(): string | null {
    return ((this.stmts.lastJid.get() as Raw).jid as string | null) ?? null;
  }

  /**
   * Synchronous and durable: a job is stored before it is published. `minions` are the expected
   * minions recorded now (all of them unless given; `expectMinions` records the rest).
   */
  insertJob(job: JobRow, minions: string[] = job.expected): void {
    this.flush();
    this.db.transaction(() => {
      this.stmts.jobInsert.run(
        job.jid,
        job.fun,
        JSON.stringify({ arg: job.arg, kwarg: job.kwarg }),
        Array.isArray(job.target) ? JSON.stringify(job.target) : job.target,
        job.tgt_type,
        job.user,
        job.batch,
        job.created_at,
        JSON.stringify(job.expected),
        job.tree_hash ?? null,
        job.parent_jid ?? null,
      );
      this.stmts.jobMinionsInsert.run(job.jid, JSON.stringify(minions));
    })();
  }

  /** More expected minions of a stored job (a job to 10,000 minions is recorded in parts). */
  expectMinions(jid: string, minions: string[]): void {
    this.stmts.jobMinionsInsert.run(jid, JSON.stringify(minions));
  }

  getJob(jid: string): JobRow | null {
    const r = this.stmts.jobGet.get(jid) as Raw | undefined;
    return r ? jobFromRow(r) : null;
  }

  isExpected(jid: string, minion: string): boolean {
    return this.stmts.jobExpects.get(jid, minion) !== undefined;
  }

  /** Queues a return; a second return of the same minion for the same job is ignored. */
  insertReturn(ret: Omit<ReturnRow, 'stored_at'>, after?: (inserted: boolean) => void): void {
    let inserted = false;
    this.enqueue(
      () => {
        const info = this.stmts.retInsert.run(
          ret.jid,
          ret.minion,
          ret.fun,
          ret.success ? 1 : 0,
          ret.retcode,
          JSON.stringify(ret.return ?? null),
          ret.started,
          ret.finished,
          isoNow(),
        );
        inserted = info.changes > 0;
      },
      after ? () => after(inserted) : undefined,
    );
  }

  returnsOf(jid: string): ReturnRow[] {
    return (this.stmts.retOf.all(jid) as Raw[]).map(returnFromRow);
  }

  /** The returns of a job after minion `after`, at most `limit` of them (by minion), as stored. */
  returnsPage(jid: string, after: string, limit: number): StoredReturn[] {
    return (this.stmts.retPage.all(jid, after, limit) as Raw[]).map(storedReturnFromRow);
  }

  listJobs(q: JobQuery = {}): Array<JobRow & { returned: number }> {
    const [sql, params] = jobsQuery(q);
    return (this.db.prepare(sql).all(...params) as Raw[]).map((r) => ({
      ...jobFromRow(r),
      returned: r.returned as number,
    }));
  }

  // ---- events ------------------------------------------------------------------------

  /** This master's name in the events it stores (a cluster tells whose an event is). */
  origin: string | null = null;

  insertEvent(tag: string, data: unknown, after?: () => void): void {
    const now = isoNow();
    // serialised here: data that cannot be must fail this call, not every later write batch
    const json = JSON.stringify(data ?? null);
    this.enqueue(() => this.stmts.eventInsert.run(tag, json, now, this.origin), after);
  }

  // ---- retention ---------------------------------------------------------------------

  /** Drops jobs (with their returns) and events older than `keepSeconds`. */
  prune(keepSeconds: number, now = Date.now()): { jobs: number; events: number } {
    const cutoff = new Date(now - keepSeconds * 1000).toISOString();
    this.flush();
    let jobs = 0;
    let events = 0;
    this.db.transaction(() => {
      jobs = this.stmts.pruneJobs.run(cutoff).changes;
      events = this.stmts.pruneEvents.run(cutoff).changes;
    })();
    return { jobs, events };
  }
}
