import { AccountStore } from './auth/account-store.js';
import pg from 'pg';
import type { KeyState, StateResultItem } from '@brine/protocol';
import { masterErrors } from './errors.js';
import { isoNow } from './iso-now.js';
import { PG_MIGRATIONS } from './migrations-pg.js';
import { LAST_HIGHSTATES_SQL, rowOf, stateQuerySql, stateResultValues, type LastHighstate, type StateQuery, type StateResultRow } from './state-results.js';
import {
  jobFromRow,
  minionFromRow,
  parseStoredReturn,
  storedReturnFromRow,
  type JobQuery,
  type JobRow,
  type KeyRow,
  type MinionQuery,
  type MinionRow,
  type Raw,
  type ReturnRow,
  type StoredReturn,
} from './store.js';
import { eventOf, RETURNS_TURN_MS, type KeyOp, type MineRow, type ReactorJobRow, type StoredEvent, type StoreBackend } from './store-backend.js';
import { jobsQuery, MINE_SQL, mineQuery, mineRowOf, minionsQuery } from './store-queries.js';
import { redactStoreUrl, refuseStorePassword } from './store-location.js';
import { setImmediate as nextTurn } from 'node:timers/promises';

/** Committed writes whose waiters run in one turn of the event loop (see `commit`). */
const DONE_PER_TURN = 500;

/** `?` placeholders (the SQLite spelling both backends' queries share) as PostgreSQL's `$n`. */
export function pgSql(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

/**
 * The URL with the password put in, for the driver only (pg lets a connection string's missing
 * password override an explicit one); the URL the master logs and shows never has it.
 */
export function withPassword(url: string, password: string | undefined): string {
  if (password === undefined) return url;
  const u = new URL(url);
  u.password = encodeURIComponent(password);
  return u.toString();
}

interface Write {
  sql: string;
  params: unknown[];
  /** Gets the row count of this statement once the batch commits. */
  done: (rows: number) => void;
  /**
   * A row insert that may be merged with the batch's other inserts of the same table into one
   * multi-row statement (one round trip for thousands of results). With `key`, the statement
   * returns the inserted rows' keys, so each write learns whether its own row went in.
   */
  merge?: { head: string; tail: string; returning?: string; key?: string };
}

// PostgreSQL takes at most 65,535 parameters per statement
const MAX_PARAMS = 60_000;

/** The batch as statements: mergeable inserts grouped (at their first place), the rest as they are. */
function plan(batch: Write[]): Array<{ sql: string; params: unknown[]; writes: Write[]; keyed: boolean }> {
  const out: Array<{ sql: string; params: unknown[]; writes: Write[]; keyed: boolean }> = [];
  const groups = new Map<string, Write[]>();
  for (const w of batch) {
    if (!w.merge) {
      out.push({ sql: w.sql, params: w.params, writes: [w], keyed: false });
      continue;
    }
    const id = w.merge.head + w.merge.tail;
    let g = groups.get(id);
    if (!g) {
      g = [];
      groups.set(id, g);
      out.push({ sql: '', params: [], writes: g, keyed: !!w.merge.returning });
    }
    g.push(w);
  }
  const expanded: typeof out = [];
  for (const st of out) {
    if (st.sql) {
      expanded.push(st);
      continue;
    }
    const m = st.writes[0]!.merge!;
    const width = st.writes[0]!.params.length;
    const per = Math.max(1, Math.floor(MAX_PARAMS / width));
    for (let i = 0; i < st.writes.length; i += per) {
      const chunk = st.writes.slice(i, i + per);
      let n = 0;
      const values = chunk.map(() => `(${Array.from({ length: width }, () => `$${++n}`).join(', ')})`).join(', ');
      expanded.push({
        sql: `${m.head} VALUES ${values} ${m.tail}${m.returning ? ` RETURNING ${m.returning}` : ''}`,
        params: chunk.flatMap((w) => w.params),
        writes: chunk,
        keyed: st.keyed,
      });
    }
  }
  // a batch with new events wakes the other masters' followers once it commits
  if (batch.some((w) => w.merge?.head.startsWith('INSERT INTO events'))) {
    expanded.push({ sql: "SELECT pg_notify('brine_events', '')", params: [], writes: [], keyed: false });
  }
  return expanded;
}

const STATE_HEAD =
  'INSERT INTO state_results (jid, minion, run_num, tag, id, name, state, fun, sls, result, changed, changes, comment, start_time, duration, stored_at)';
const STATE_INSERT = `INSERT INTO state_results
  (jid, minion, run_num, tag, id, name, state, fun, sls, result, changed, changes, comment, start_time, duration, stored_at)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`;

/**
 * The store on PostgreSQL, for several masters sharing one fleet. Hot writes (returns, state
 * results, events, last-seen) are batched per tick into one transaction, as on SQLite; a batch
 * that fails (the server restarting) is kept and retried with backoff, and nothing waiting on it
 * resolves before it commits, so a minion's ack never runs ahead of the data.
 */
export class PgStore implements StoreBackend {
  readonly kind = 'postgres' as const;
  private queue: Write[] = [];
  private scheduled = false;
  private flushing: Promise<void> | undefined;
  private retryMs = 0;
  onWriteError: (err: Error, info: { writes: number; retryMs: number }) => void = () => undefined;
  onWriteTime: (seconds: number) => void = () => undefined;

  private readonly pool: pg.Pool;
  readonly location: string;
  private readonly connectionString: string;
  readonly accounts: AccountStore = new AccountStore({
    run: async (sql, params) => (await this.tx([[sql, params]]))[0]!,
    all: (sql, params) => this.all(sql, params),
  });
  private constructor(pool: pg.Pool, location: string, connectionString: string) {
    this.pool = pool;
    this.location = location;
    this.connectionString = connectionString;
  }

  /** Connects and runs the schema steps not yet run (one transaction each, under an advisory lock, so masters starting together do not race). */
  static async open(url: string, password?: string, max = 10): Promise<PgStore> {
    refuseStorePassword(url);
    const safe = redactStoreUrl(url);
    const connectionString = withPassword(url, password);
    const pool = new pg.Pool({ connectionString, max });
    // an idle client losing the server (a restart) must not crash the master
    pool.on('error', () => undefined);
    const store = new PgStore(pool, safe, connectionString);
    try {
      await store.migrate();
    } catch (err) {
      await pool.end().catch(() => undefined);
      throw masterErrors.make('BRINE_ERR_MASTER_STORE', { file: safe, detail: (err as Error).message });
    }
    return store;
  }

  /**
   * A pooled client for several statements. pg-pool drops its own error listener while a client
   * is checked out, so a socket reset between two statements (the server restarting) would be an
   * unhandled 'error' event and crash the master: one is kept here until release. A client that
   * failed is destroyed, not put back, so the pool never hands out a dead connection.
   */
  private async withClient<T>(fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    const c = await this.pool.connect();
    let failure: Error | undefined;
    const onError = (err: Error): void => {
      failure = err;
    };
    c.on('error', onError);
    try {
      return await fn(c);
    } catch (err) {
      failure ??= err as Error;
      throw err;
    } finally {
      c.off('error', onError);
      c.release(failure);
    }
  }

  private async migrate(): Promise<void> {
    await this.withClient(async (c) => {
      try {
        await c.query('SELECT pg_advisory_lock(7470711)');
        await c.query('CREATE TABLE IF NOT EXISTS brine_schema (version INTEGER NOT NULL)');
        const r = await c.query<{ version: number }>('SELECT version FROM brine_schema');
        if (r.rowCount === 0) await c.query('INSERT INTO brine_schema (version) VALUES (0)');
        for (let v = r.rows[0]?.version ?? 0; v < PG_MIGRATIONS.length; v++) {
          await c.query('BEGIN');
          try {
            await c.query(PG_MIGRATIONS[v]!);
            await c.query('UPDATE brine_schema SET version = $1', [v + 1]);
            await c.query('COMMIT');
          } catch (err) {
            await c.query('ROLLBACK');
            throw err;
          }
        }
      } finally {
        await c.query('SELECT pg_advisory_unlock(7470711)').catch(() => undefined);
      }
    });
  }

  async schemaVersion(): Promise<number> {
    return (await this.pool.query<{ version: number }>('SELECT version FROM brine_schema')).rows[0]?.version ?? 0;
  }

  private async all(sql: string, params: unknown[] = []): Promise<Raw[]> {
    return (await this.pool.query(pgSql(sql), params)).rows as Raw[];
  }

  /** A batch in one transaction: each write gets its row count once it commits. */
  private async commit(batch: Write[]): Promise<void> {
    const statements = plan(batch);
    const t0 = performance.now();
    const counts: Array<[Write, number]> = [];
    await this.withClient(async (c) => {
      try {
        await c.query('BEGIN');
        for (const st of statements) {
          const r = await c.query(st.sql, st.params);
          if (st.writes.length === 1 && !st.keyed) counts.push([st.writes[0]!, r.rowCount ?? 0]);
          else if (st.keyed) {
            const got = new Set(r.rows.map((row: Record<string, unknown>) => Object.values(row).join('\0')));
            for (const w of st.writes) counts.push([w, got.has(w.merge!.key!) ? 1 : 0]);
          } else for (const w of st.writes) counts.push([w, 1]);
        }
        await c.query('COMMIT');
      } catch (err) {
        await c.query('ROLLBACK').catch(() => undefined);
        throw err;
      }
    });
    this.onWriteTime((performance.now() - t0) / 1000);
    // what waits on a write (a minion's ack, an event's subscribers) runs a few hundred a turn
    // of the event loop: a batch of 10,000 returns must not hold it
    for (let i = 0; i < counts.length; i++) {
      if (i > 0 && i % DONE_PER_TURN === 0) await nextTurn();
      counts[i]![0].done(counts[i]![1]);
    }
  }

  /** Several statements in one transaction, now (keys, jobs: durable before they are acted on). */
  private async tx(statements: Array<[string, unknown[]]>): Promise<number[]> {
    return this.withClient(async (c) => {
      try {
        await c.query('BEGIN');
        const counts: number[] = [];
        for (const [sql, params] of statements) counts.push((await c.query(pgSql(sql), params)).rowCount ?? 0);
        await c.query('COMMIT');
        return counts;
      } catch (err) {
        await c.query('ROLLBACK').catch(() => undefined);
        throw err;
      }
    });
  }

  /** Queues a write for the next batch; resolves with its row count once the batch commits. */
  private enqueue(sql: string, params: unknown[], merge?: Write['merge']): Promise<number> {
    return new Promise((resolve) => {
      this.queue.push({ sql: pgSql(sql), params, done: resolve, ...(merge ? { merge } : {}) });
      if (!this.scheduled) {
        this.scheduled = true;
        // eslint-disable-next-line @typescript-eslint/no-floating-promises -- flush() retries a failed batch and reports it through onWriteError
        setImmediate(() => void this.flush());
      }
    });
  }

  /** Commits what is queued; a failed batch goes back in front and is retried with backoff. */
  async flush(): Promise<void> {
    this.scheduled = false;
    if (this.flushing) return this.flushing;
    if (this.queue.length === 0) return;
    const batch = this.queue;
    this.queue = [];
    this.flushing = (async () => {
      try {
        await this.commit(batch);
        this.retryMs = 0;
      } catch (err) {
        this.queue = [...batch, ...this.queue];
        this.retryMs = Math.min(this.retryMs ? this.retryMs * 2 : 100, 5000);
        this.onWriteError(
          masterErrors.make('BRINE_ERR_MASTER_STORE_WRITE', {
            file: this.location,
            writes: batch.length,
            detail: (err as Error).message,
            retry_ms: this.retryMs,
          }),
          { writes: batch.length, retryMs: this.retryMs },
        );
        await new Promise((r) => setTimeout(r, this.retryMs));
      } finally {
        this.flushing = undefined;
      }
      if (this.queue.length) await this.flush();
    })();
    return this.flushing;
  }

  // ---- keys ----
  async keysOf(minion: string): Promise<KeyRow[]> {
    return (await this.all('SELECT * FROM keys WHERE minion = ? ORDER BY created_at', [minion])) as unknown as KeyRow[];
  }
  async listKeys(): Promise<KeyRow[]> {
    return (await this.all('SELECT * FROM keys ORDER BY state, minion')) as unknown as KeyRow[];
  }
  async insertKey(minion: string, pub: string, fingerprint: string, state: KeyState): Promise<boolean> {
    const now = new Date().toISOString();
    const [added] = await this.tx([
      [
        'INSERT INTO keys (minion, pub, fingerprint, state, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING',
        [minion, pub, fingerprint, state, now, now],
      ],
    ]);
    return added! > 0;
  }
  async setKeyState(minion: string, fingerprint: string, state: KeyState): Promise<void> {
    await this.tx([['UPDATE keys SET state = ?, updated_at = ? WHERE minion = ? AND fingerprint = ?', [state, new Date().toISOString(), minion, fingerprint]]]);
  }
  async deleteKey(minion: string, fingerprint: string): Promise<void> {
    await this.tx([
      ['DELETE FROM keys WHERE minion = ? AND fingerprint = ?', [minion, fingerprint]],
      ['DELETE FROM minions WHERE minion = ? AND NOT EXISTS (SELECT 1 FROM keys WHERE minion = ?)', [minion, minion]],
    ]);
  }

  async changeKeys(ops: KeyOp[]): Promise<void> {
    const statements: Array<[string, unknown[]]> = [];
    const now = new Date().toISOString();
    for (const o of ops) {
      if (o.to === 'deleted') {
        statements.push(['DELETE FROM keys WHERE minion = ? AND fingerprint = ?', [o.minion, o.fingerprint]]);
        statements.push(['DELETE FROM minions WHERE minion = ? AND NOT EXISTS (SELECT 1 FROM keys WHERE minion = ?)', [o.minion, o.minion]]);
      } else statements.push(['UPDATE keys SET state = ?, updated_at = ? WHERE minion = ? AND fingerprint = ?', [o.to, now, o.minion, o.fingerprint]]);
    }
    if (statements.length) await this.tx(statements);
  }

  // ---- minions ----
  async saveGrains(minion: string, grains: Record<string, unknown>): Promise<void> {
    const now = isoNow();
    await this.enqueue(
      `INSERT INTO minions (minion, grains, last_seen, first_seen) VALUES (?, ?, ?, ?)
       ON CONFLICT (minion) DO UPDATE SET grains = excluded.grains, last_seen = excluded.last_seen`,
      [minion, JSON.stringify(grains), now, now],
    );
  }
  async touchMinion(minion: string): Promise<void> {
    await this.enqueue('UPDATE minions SET last_seen = ? WHERE minion = ?', [isoNow(), minion], {
      head: 'UPDATE minions SET last_seen = v.ts FROM (',
      tail: ') AS v (ts, minion) WHERE minions.minion = v.minion',
    });
  }
  async listMinions(q: MinionQuery = {}): Promise<MinionRow[]> {
    return (await this.all(...minionsQuery(q))).map(minionFromRow);
  }
  async countMinions(): Promise<number> {
    return Number((await this.all('SELECT count(*) AS n FROM minions'))[0]!.n);
  }
  async grainsOf(minion: string): Promise<Record<string, unknown> | undefined> {
    const [r] = await this.all('SELECT grains FROM minions WHERE minion = ?', [minion]);
    return r ? (JSON.parse(r.grains as string) as Record<string, unknown>) : undefined;
  }

  // ---- jobs ----
  async lastJid(): Promise<string | null> {
    return ((await this.all('SELECT max(jid) AS jid FROM jobs'))[0]?.jid as string | null) ?? null;
  }
  async insertJob(job: JobRow): Promise<void> {
    await this.flush();
    await this.tx([
      [
        'INSERT INTO jobs (jid, fun, args, target, tgt_type, "user", batch, created_at, expected, tree_hash, parent_jid) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
        [
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
        ],
      ],
      // one statement for the whole target list: a round trip per minion would dominate a large job
      ['INSERT INTO job_minions (jid, minion) SELECT ?, unnest(?::text[]) ON CONFLICT DO NOTHING', [job.jid, job.expected]],
    ]);
  }
  async getJob(jid: string): Promise<JobRow | null> {
    const [r] = await this.all('SELECT * FROM jobs WHERE jid = ?', [jid]);
    return r ? jobFromRow(r) : null;
  }
  async isExpected(jid: string, minion: string): Promise<boolean> {
    return (await this.all('SELECT 1 FROM job_minions WHERE jid = ? AND minion = ?', [jid, minion])).length > 0;
  }
  async insertReturn(ret: Omit<ReturnRow, 'stored_at'>): Promise<boolean> {
    const rows = await this.enqueue(
      `INSERT INTO returns (jid, minion, fun, success, retcode, ret, started, finished, stored_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
      [ret.jid, ret.minion, ret.fun, ret.success ? 1 : 0, ret.retcode, JSON.stringify(ret.return ?? null), ret.started, ret.finished, isoNow()],
      {
        head: 'INSERT INTO returns (jid, minion, fun, success, retcode, ret, started, finished, stored_at)',
        tail: 'ON CONFLICT DO NOTHING',
        returning: 'jid, minion',
        key: `${ret.jid}\0${ret.minion}`,
      },
    );
    return rows > 0;
  }
  returnsOf(jid: string): Promise<ReturnRow[]> {
    return this.returnsAs(jid, parseStoredReturn);
  }
  async returnsAs<R>(jid: string, each: (r: StoredReturn) => R): Promise<R[]> {
    const out: R[] = [];
    let turnStart = performance.now();
    for (const row of await this.all('SELECT * FROM returns WHERE jid = ? ORDER BY minion', [jid])) {
      out.push(each(storedReturnFromRow(row)));
      if (performance.now() - turnStart < RETURNS_TURN_MS) continue;
      await nextTurn();
      turnStart = performance.now();
    }
    return out;
  }
  async listJobs(q: JobQuery = {}): Promise<Array<JobRow & { returned: number }>> {
    const [sql, params] = jobsQuery(q);
    return (await this.all(sql, params)).map((r) => ({ ...jobFromRow(r), returned: Number(r.returned) }));
  }

  // ---- state results ----
  async insertStateResults(jid: string, minion: string, items: StateResultItem[]): Promise<void> {
    const now = new Date().toISOString();
    const merge = { head: STATE_HEAD, tail: 'ON CONFLICT DO NOTHING' };
    await Promise.all(items.map((it) => this.enqueue(STATE_INSERT, stateResultValues(jid, minion, it, now), merge)));
  }
  async stateResultsOf(jid: string, minion?: string): Promise<StateResultRow[]> {
    const rows =
      minion === undefined
        ? await this.all('SELECT * FROM state_results WHERE jid = ? ORDER BY minion, run_num', [jid])
        : await this.all('SELECT * FROM state_results WHERE jid = ? AND minion = ? ORDER BY run_num', [jid, minion]);
    return rows.map(rowOf);
  }

  async queryStates(q: StateQuery): Promise<StateResultRow[]> {
    const [sql, params] = stateQuerySql(q);
    return (await this.all(sql, params)).map(rowOf);
  }
  async lastHighstates(): Promise<LastHighstate[]> {
    return (await this.all(LAST_HIGHSTATES_SQL)).map((r) => ({
      minion: r.minion as string,
      jid: r.jid as string,
      created_at: r.created_at as string,
      success: r.success === null ? null : Number(r.success) === 1,
      states: Number(r.states),
      failed: Number(r.failed),
      changed: Number(r.changed),
    }));
  }
  async markHighstate(jid: string): Promise<void> {
    await this.tx([['UPDATE jobs SET highstate = 1 WHERE jid = ?', [jid]]]);
  }

  // ---- events, retention ----
  origin: string | null = null;
  readonly clustered = true;

  async insertEvent(tag: string, data: unknown): Promise<void> {
    // the NOTIFY is delivered when the batch commits: the other masters then read the new rows
    await this.enqueue('INSERT INTO events (tag, data, created_at, origin) VALUES (?, ?, ?, ?)', [tag, JSON.stringify(data ?? null), isoNow(), this.origin], {
      head: 'INSERT INTO events (tag, data, created_at, origin)',
      tail: '',
    });
  }

  async eventsAfter(seq: number, limit = 1000, notFrom?: string): Promise<StoredEvent[]> {
    if (notFrom === undefined)
      return (await this.all('SELECT seq, tag, data, origin, created_at FROM events WHERE seq > ? ORDER BY seq LIMIT ?', [seq, limit])).map(eventOf);
    // this master's own events come back as bare numbers: the watermark needs them, their data not
    const rows = await this.all(
      'SELECT seq, tag, CASE WHEN origin IS DISTINCT FROM ? THEN data END AS data, origin, created_at FROM events WHERE seq > ? ORDER BY seq LIMIT ?',
      [notFrom, seq, limit],
    );
    return rows.map((r) =>
      r.data === null
        ? { seq: Number(r.seq), tag: r.tag as string, data: null, origin: (r.origin as string | null) ?? null, created_at: r.created_at as string }
        : eventOf(r),
    );
  }
  async lastEventSeq(): Promise<number> {
    return Number((await this.all('SELECT coalesce(max(seq), 0) AS seq FROM events'))[0]?.seq ?? 0);
  }
  async setPresence(minion: string, master: string, connected: boolean): Promise<void> {
    if (connected) {
      await this.enqueue(
        'INSERT INTO presence (minion, master, since) VALUES (?, ?, ?) ON CONFLICT (minion) DO UPDATE SET master = excluded.master, since = excluded.since',
        [minion, master, new Date().toISOString()],
      );
    } else await this.enqueue('DELETE FROM presence WHERE minion = ? AND master = ?', [minion, master]);
  }
  async presence(freshSeconds: number): Promise<Record<string, string>> {
    const cutoff = new Date(Date.now() - freshSeconds * 1000).toISOString();
    const rows = await this.all('SELECT p.minion AS minion, p.master AS master FROM presence p JOIN masters m ON m.id = p.master WHERE m.seen_at >= ?', [
      cutoff,
    ]);
    return Object.fromEntries(rows.map((r) => [r.minion as string, r.master as string]));
  }
  async heartbeat(id: string, apiUrl: string): Promise<void> {
    await this.tx([
      [
        'INSERT INTO masters (id, api_url, seen_at) VALUES (?, ?, ?) ON CONFLICT (id) DO UPDATE SET api_url = excluded.api_url, seen_at = excluded.seen_at',
        [id, apiUrl, new Date().toISOString()],
      ],
    ]);
  }
  async clearPresence(master: string): Promise<void> {
    await this.tx([['DELETE FROM presence WHERE master = ?', [master]]]);
  }

  /**
   * A dedicated connection LISTENing for new events; `onWake` runs on each NOTIFY and after the
   * connection is re-made (the server restarted), so the follower catches up on what it missed.
   */
  async listen(onWake: () => void, onError: (err: Error) => void): Promise<() => Promise<void>> {
    let stopped = false;
    let client: pg.Client | undefined;
    let retry = 100;
    const connect = async (): Promise<void> => {
      if (stopped) return;
      const c = new pg.Client({ connectionString: this.connectionString });
      c.on('notification', () => onWake());
      c.on('error', (err) => {
        onError(err);
        c.end().catch(() => undefined);
        if (client === c) client = undefined;
        setTimeout(() => void connect().catch(() => undefined), retry).unref();
      });
      try {
        await c.connect();
        await c.query('LISTEN brine_events');
        client = c;
        retry = 100;
        onWake();
      } catch (err) {
        onError(err as Error);
        await c.end().catch(() => undefined);
        retry = Math.min(retry * 2, 5000);
        setTimeout(() => void connect().catch(() => undefined), retry).unref();
      }
    };
    await connect();
    return async () => {
      stopped = true;
      await client?.end().catch(() => undefined);
    };
  }
  async prune(keepSeconds: number, now = Date.now()): Promise<{ jobs: number; events: number }> {
    const cutoff = new Date(now - keepSeconds * 1000).toISOString();
    await this.flush();
    const [jobs, events] = await this.tx([
      ['DELETE FROM jobs WHERE created_at < ?', [cutoff]],
      ['DELETE FROM events WHERE created_at < ?', [cutoff]],
    ]);
    return { jobs: jobs!, events: events! };
  }

  async close(): Promise<void> {
    await this.flush().catch(() => undefined);
    await this.pool.end();
  }

  // ---- the mine ----
  async minePut(minion: string, data: Record<string, unknown>, clear: boolean): Promise<void> {
    const now = new Date().toISOString();
    const statements: Array<[string, unknown[]]> = clear ? [[MINE_SQL.clear, [minion]]] : [];
    for (const [fun, value] of Object.entries(data)) statements.push([MINE_SQL.put, [minion, fun, JSON.stringify(value) ?? 'null', now]]);
    if (statements.length) await this.tx(statements);
  }
  async mineDelete(minion: string, fun?: string): Promise<void> {
    await this.tx([fun === undefined ? [MINE_SQL.clear, [minion]] : [MINE_SQL.delete, [minion, fun]]]);
  }
  async mineGet(q: { funs?: string[]; minion?: string }): Promise<MineRow[]> {
    return (await this.all(...mineQuery(q))).map(mineRowOf);
  }

  // ---- the reactor (issue 25) ----
  // not batched: the claim's answer (first or not) decides whether this master reacts
  async claimReaction(key: string, tag: string, master: string | null, depth: number): Promise<boolean> {
    const [n] = await this.tx([
      [
        'INSERT INTO reactions (event_key, tag, master, depth, created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (event_key) DO NOTHING',
        [key, tag, master, depth, new Date().toISOString()],
      ],
    ]);
    return n === 1;
  }
  async noteReactorJob(jid: string, tag: string, depth: number): Promise<void> {
    await this.tx([
      ['INSERT INTO reactor_jobs (jid, tag, depth, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (jid) DO NOTHING', [jid, tag, depth, new Date().toISOString()]],
    ]);
  }
  async reactorDepthOf(jid: string): Promise<number | undefined> {
    const row = (await this.all('SELECT depth FROM reactor_jobs WHERE jid = ?', [jid]))[0];
    return row ? Number(row.depth) : undefined;
  }
  async reactorJobs(limit: number): Promise<ReactorJobRow[]> {
    return (await this.all('SELECT jid, tag, depth, created_at FROM reactor_jobs ORDER BY jid DESC LIMIT ?', [limit])).map((r) => ({
      jid: r.jid as string,
      tag: r.tag as string,
      depth: Number(r.depth),
      created_at: r.created_at as string,
    }));
  }
  async pruneReactions(keepSeconds: number, now = Date.now()): Promise<void> {
    const cutoff = new Date(now - keepSeconds * 1000).toISOString();
    await this.tx([
      ['DELETE FROM reactions WHERE created_at < ?', [cutoff]],
      ['DELETE FROM reactor_jobs WHERE created_at < ?', [cutoff]],
    ]);
  }
}
