import type { KeyState, StateResultItem } from '@brine/protocol';
import { StateResultStore, type LastHighstate, type StateQuery, type StateResultRow } from './state-results.js';
import {
  MasterStore,
  type JobQuery,
  type JobRow,
  type KeyRow,
  type MinionQuery,
  type MinionRow,
  type ReturnRow,
  type StoredReturn,
  parseStoredReturn,
} from './store.js';
import { eventOf, RETURNS_TURN_MS, type KeyOp, type MineRow, type ReactorJobRow, type StoredEvent, type StoreBackend } from './store-backend.js';
import { MINE_SQL, mineQuery, mineRowOf } from './store-queries.js';
import { AccountStore } from './auth/account-store.js';
import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * Rows read or written per turn of the event loop where a job has thousands of minions (its
 * expected minions, its returns): 10,000 in one go would hold the loop for tens of milliseconds.
 */
const ROWS_PER_TURN = 2000;

/** A job's returns are read back this many a page, pages for at most RETURNS_TURN_MS a turn. */
const RETURNS_PER_PAGE = 100;

/** The embedded SQLite store behind the backend interface (its batching and checks as they are). */
export class SqliteBackend implements StoreBackend {
  readonly kind = 'sqlite' as const;
  readonly results: StateResultStore;
  readonly store: MasterStore;
  readonly accounts: AccountStore;
  constructor(store: MasterStore) {
    this.store = store;
    this.accounts = new AccountStore({
      run: async (sql, params) => store.db.prepare(sql).run(...params).changes,
      all: async (sql, params) => store.db.prepare(sql).all(...params) as Array<Record<string, unknown>>,
    });
    this.results = new StateResultStore(store);
  }
  static open(file: string): SqliteBackend {
    return new SqliteBackend(new MasterStore(file));
  }
  get location(): string {
    return this.store.file;
  }
  async schemaVersion(): Promise<number> {
    return this.store.schemaVersion;
  }
  async keysOf(minion: string): Promise<KeyRow[]> {
    return this.store.keysOf(minion);
  }
  async listKeys(): Promise<KeyRow[]> {
    return this.store.listKeys();
  }
  async insertKey(minion: string, pub: string, fingerprint: string, state: KeyState): Promise<boolean> {
    return this.store.insertKey(minion, pub, fingerprint, state);
  }
  async setKeyState(minion: string, fingerprint: string, state: KeyState): Promise<void> {
    this.store.setKeyState(minion, fingerprint, state);
  }
  // a deleted key takes its minion row along: grains still queued for it are written first
  async deleteKey(minion: string, fingerprint: string): Promise<void> {
    await this.store.drain();
    this.store.flush();
    this.store.deleteKey(minion, fingerprint);
  }
  async changeKeys(ops: KeyOp[]): Promise<void> {
    await this.store.drain();
    this.store.flush();
    this.store.db.transaction(() => {
      for (const o of ops) {
        if (o.to === 'deleted') this.store.deleteKey(o.minion, o.fingerprint);
        else this.store.setKeyState(o.minion, o.fingerprint, o.to);
      }
    })();
  }
  // a storm of connects writes these rows for many minions in one tick's transaction; the
  // readers below wait for what is queued first (drain: a turn's budget at a time), so a lookup
  // still sees every write made before it
  saveGrains(minion: string, grains: Record<string, unknown>): Promise<void> {
    return new Promise((resolve) => this.store.saveGrains(minion, grains, resolve));
  }
  touchMinion(minion: string): Promise<void> {
    return new Promise((resolve) => this.store.touchMinion(minion, resolve));
  }
  async listMinions(q?: MinionQuery): Promise<MinionRow[]> {
    await this.store.drain();
    return this.store.listMinions(q);
  }
  async countMinions(): Promise<number> {
    await this.store.drain();
    return this.store.countMinions();
  }
  async grainsOf(minion: string): Promise<Record<string, unknown> | undefined> {
    await this.store.drain();
    return this.store.grainsOf(minion);
  }
  async lastJid(): Promise<string | null> {
    return this.store.lastJid();
  }
  async insertJob(job: JobRow): Promise<void> {
    // the job row with its first expected minions, the rest in later turns of the event loop;
    // what is queued before it is committed first, a turn at a time
    await this.store.drain();
    this.store.insertJob(job, job.expected.slice(0, ROWS_PER_TURN));
    for (let i = ROWS_PER_TURN; i < job.expected.length; i += ROWS_PER_TURN) {
      await nextTurn();
      this.store.expectMinions(job.jid, job.expected.slice(i, i + ROWS_PER_TURN));
    }
    // the caller (publish: the job's event, its send queue, its first frames) goes on in a turn
    // of its own, not added to the last slice's
    if (job.expected.length > ROWS_PER_TURN) await nextTurn();
  }
  async getJob(jid: string): Promise<JobRow | null> {
    return this.store.getJob(jid);
  }
  async isExpected(jid: string, minion: string): Promise<boolean> {
    return this.store.isExpected(jid, minion);
  }
  insertReturn(ret: Omit<ReturnRow, 'stored_at'>): Promise<boolean> {
    return new Promise((resolve) => this.store.insertReturn(ret, resolve));
  }
  returnsOf(jid: string): Promise<ReturnRow[]> {
    return this.returnsAs(jid, parseStoredReturn);
  }
  async returnsAs<R>(jid: string, each: (r: StoredReturn) => R): Promise<R[]> {
    const out: R[] = [];
    let after = '';
    let turnStart = performance.now();
    for (;;) {
      const page = this.store.returnsPage(jid, after, RETURNS_PER_PAGE);
      for (const r of page) out.push(each(r));
      if (page.length < RETURNS_PER_PAGE) return out;
      after = page[page.length - 1]!.minion;
      if (performance.now() - turnStart < RETURNS_TURN_MS) continue;
      await nextTurn();
      turnStart = performance.now();
    }
  }
  async listJobs(q?: JobQuery): Promise<Array<JobRow & { returned: number }>> {
    return this.store.listJobs(q);
  }
  insertStateResults(jid: string, minion: string, items: StateResultItem[]): Promise<void> {
    return new Promise((resolve) => this.results.insert(jid, minion, items, resolve));
  }
  async stateResultsOf(jid: string, minion?: string): Promise<StateResultRow[]> {
    return this.results.ofJob(jid, minion);
  }
  async queryStates(q: StateQuery): Promise<StateResultRow[]> {
    return this.results.query(q);
  }
  async lastHighstates(): Promise<LastHighstate[]> {
    return this.results.lastHighstates();
  }
  async markHighstate(jid: string): Promise<void> {
    this.results.markHighstate(jid);
  }
  async flush(): Promise<void> {
    await this.store.drain();
  }
  get onWriteError(): StoreBackend['onWriteError'] {
    return this.store.onWriteError;
  }
  set onWriteError(fn: StoreBackend['onWriteError']) {
    this.store.onWriteError = fn;
  }
  get onWriteTime(): StoreBackend['onWriteTime'] {
    return this.store.onWriteTime;
  }
  set onWriteTime(fn: StoreBackend['onWriteTime']) {
    this.store.onWriteTime = fn;
  }
  readonly clustered = false;
  get origin(): string | null {
    return this.store.origin;
  }
  set origin(id: string | null) {
    this.store.origin = id;
  }
  async eventsAfter(seq: number, limit = 1000): Promise<StoredEvent[]> {
    await this.store.drain();
    return (
      this.store.db.prepare('SELECT seq, tag, data, origin, created_at FROM events WHERE seq > ? ORDER BY seq LIMIT ?').all(seq, limit) as Array<
        Record<string, unknown>
      >
    ).map(eventOf);
  }
  async lastEventSeq(): Promise<number> {
    return (this.store.db.prepare('SELECT coalesce(max(seq), 0) AS seq FROM events').get() as { seq: number }).seq;
  }
  // One master owns a SQLite store: every connected minion is its own, so no presence is kept.
  async setPresence(): Promise<void> {}
  async presence(): Promise<Record<string, string>> {
    return {};
  }
  async heartbeat(): Promise<void> {}
  async clearPresence(): Promise<void> {}
  async listen(): Promise<() => Promise<void>> {
    return async () => undefined;
  }
  insertEvent(tag: string, data: unknown): Promise<void> {
    return new Promise((resolve) => this.store.insertEvent(tag, data, resolve));
  }
  async prune(keepSeconds: number, now?: number): Promise<{ jobs: number; events: number }> {
    await this.store.drain();
    return this.store.prune(keepSeconds, now);
  }
  async close(): Promise<void> {
    this.store.close();
  }

  // ---- the mine ----
  minePut(minion: string, data: Record<string, unknown>, clear: boolean): Promise<void> {
    const now = new Date().toISOString();
    const rows = Object.entries(data).map(([fun, value]) => [minion, fun, JSON.stringify(value) ?? 'null', now]);
    return new Promise((resolve) =>
      this.store.enqueue(() => {
        if (clear) this.store.db.prepare(MINE_SQL.clear).run(minion);
        const put = this.store.db.prepare(MINE_SQL.put);
        for (const r of rows) put.run(...r);
      }, resolve),
    );
  }
  mineDelete(minion: string, fun?: string): Promise<void> {
    return new Promise((resolve) =>
      this.store.enqueue(() => {
        if (fun === undefined) this.store.db.prepare(MINE_SQL.clear).run(minion);
        else this.store.db.prepare(MINE_SQL.delete).run(minion, fun);
      }, resolve),
    );
  }
  async mineGet(q: { funs?: string[]; minion?: string }): Promise<MineRow[]> {
    await this.store.drain();
    const [sql, params] = mineQuery(q);
    return (this.store.db.prepare(sql).all(...params) as Array<Record<string, unknown>>).map(mineRowOf);
  }

  // ---- the reactor (issue 25) ----
  async claimReaction(key: string, tag: string, master: string | null, depth: number): Promise<boolean> {
    const r = this.store.db
      .prepare('INSERT INTO reactions (event_key, tag, master, depth, created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (event_key) DO NOTHING')
      .run(key, tag, master, depth, new Date().toISOString());
    return r.changes === 1;
  }
  async noteReactorJob(jid: string, tag: string, depth: number): Promise<void> {
    this.store.db
      .prepare('INSERT INTO reactor_jobs (jid, tag, depth, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (jid) DO NOTHING')
      .run(jid, tag, depth, new Date().toISOString());
  }
  async reactorDepthOf(jid: string): Promise<number | undefined> {
    return (this.store.db.prepare('SELECT depth FROM reactor_jobs WHERE jid = ?').get(jid) as { depth: number } | undefined)?.depth;
  }
  async reactorJobs(limit: number): Promise<ReactorJobRow[]> {
    return this.store.db.prepare('SELECT jid, tag, depth, created_at FROM reactor_jobs ORDER BY jid DESC LIMIT ?').all(limit) as ReactorJobRow[];
  }
  async pruneReactions(keepSeconds: number, now = Date.now()): Promise<void> {
    const cutoff = new Date(now - keepSeconds * 1000).toISOString();
    this.store.db.prepare('DELETE FROM reactions WHERE created_at < ?').run(cutoff);
    this.store.db.prepare('DELETE FROM reactor_jobs WHERE created_at < ?').run(cutoff);
  }
}
