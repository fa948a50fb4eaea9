import type { JobQuery, JobRow, KeyRow, MinionQuery, MinionRow, ReturnRow, StoredReturn } from './store.js';
import type { KeyState, StateResultItem } from '@brine/protocol';
import type { AccountStore } from './auth/account-store.js';
import type { LastHighstate, StateQuery, StateResultRow } from './state-results.js';

/**
 * How long a turn of the event loop may spend turning a job's stored returns into rows: an
 * in-process reader parses each return, and a highstate's is large (2,000 of 20 states each took
 * 110-220 ms of the loop, most of it JSON.parse and the young collections it caused;
 * bench/fleet.mjs 10000 20). A reply keeps the stored text instead (returnEntryJson).
 */
export const RETURNS_TURN_MS = 8;

/**
 * The job/key/event store as one asynchronous interface with two backends: SQLite (embedded, the
 * default) and PostgreSQL (a master cluster). Both run the same schema steps and answer the same
 * queries; `test/store-backends.test.ts` runs one suite against both. Writes that a minion's ack
 * waits on resolve only once committed.
 */
export interface StoreBackend {
  readonly kind: 'sqlite' | 'postgres';
  /** Where it is, for messages (a file, or the URL without a password). */
  readonly location: string;
  schemaVersion(): Promise<number>;
  /** Operators, API tokens and the audit trail (issue 27). */
  readonly accounts: AccountStore;

  keysOf(minion: string): Promise<KeyRow[]>;
  listKeys(): Promise<KeyRow[]>;
  /**
   * False when no row was added: the same key is there already, or the id has another live key
   * (any state but denied; one per id, so two masters' first hellos cannot both land).
   */
  insertKey(minion: string, pub: string, fingerprint: string, state: KeyState): Promise<boolean>;
  setKeyState(minion: string, fingerprint: string, state: KeyState): Promise<void>;
  deleteKey(minion: string, fingerprint: string): Promise<void>;
  /** Several key moves in one transaction (salt-key -A and friends). */
  changeKeys(ops: KeyOp[]): Promise<void>;

  saveGrains(minion: string, grains: Record<string, unknown>): Promise<void>;
  touchMinion(minion: string): Promise<void>;
  /** Known minions by id; a query picks a page of them (GET /v1/minions). */
  listMinions(q?: MinionQuery): Promise<MinionRow[]>;
  countMinions(): Promise<number>;
  grainsOf(minion: string): Promise<Record<string, unknown> | undefined>;

  lastJid(): Promise<string | null>;
  insertJob(job: JobRow): Promise<void>;
  getJob(jid: string): Promise<JobRow | null>;
  isExpected(jid: string, minion: string): Promise<boolean>;
  /** Resolves once committed: true when stored now, false when that minion's return was already there. */
  insertReturn(ret: Omit<ReturnRow, 'stored_at'>): Promise<boolean>;
  returnsOf(jid: string): Promise<ReturnRow[]>;
  /** A job's returns by minion, each as stored and turned into what the caller keeps (between turns). */
  returnsAs<R>(jid: string, each: (r: StoredReturn) => R): Promise<R[]>;
  listJobs(q?: JobQuery): Promise<Array<JobRow & { returned: number }>>;

  /** Resolves once committed; a run number stored before is kept as it was (exactly once). */
  insertStateResults(jid: string, minion: string, items: StateResultItem[]): Promise<void>;
  stateResultsOf(jid: string, minion?: string): Promise<StateResultRow[]>;
  queryStates(q: StateQuery): Promise<StateResultRow[]>;
  lastHighstates(): Promise<LastHighstate[]>;
  markHighstate(jid: string): Promise<void>;

  insertEvent(tag: string, data: unknown): Promise<void>;

  // ---- the master cluster (PostgreSQL); a single SQLite master keeps no presence ----
  /** This master's name, stored with its events. */
  origin: string | null;
  /** Whether several masters may share this store (then the cluster link runs). */
  readonly clustered: boolean;
  /** Events after `seq`; with `notFrom`, only those another master fired. */
  eventsAfter(seq: number, limit?: number, notFrom?: string): Promise<StoredEvent[]>;
  lastEventSeq(): Promise<number>;
  /** Records (or, when it left, forgets) that a minion is connected to this master. */
  setPresence(minion: string, master: string, connected: boolean): Promise<void>;
  /** Minion -> master, for masters whose heartbeat is fresher than `freshSeconds`. */
  presence(freshSeconds: number): Promise<Record<string, string>>;
  heartbeat(id: string, apiUrl: string): Promise<void>;
  clearPresence(master: string): Promise<void>;
  /** Wakes the follower on new events (PostgreSQL LISTEN); the returned function stops it. */
  listen(onWake: () => void, onError: (err: Error) => void): Promise<() => Promise<void>>;
  prune(keepSeconds: number, now?: number): Promise<{ jobs: number; events: number }>;
  /** Resolves once every write queued so far has committed. */
  flush(): Promise<void>;
  /** Told when a write batch fails and will be retried (the master logs it). */
  onWriteError: (err: Error, info: { writes: number; retryMs: number }) => void;
  /** Told how long each committed write batch took, in seconds (metrics). */
  onWriteTime: (seconds: number) => void;
  close(): Promise<void>;

  // ---- the mine (mine_functions, mine.send): one value per minion and function ----
  /** Stores a minion's values, each with the time of the push; `clear` drops its other functions first. */
  minePut(minion: string, data: Record<string, unknown>, clear: boolean): Promise<void>;
  /** Drops one function of a minion (mine.delete), or all of them without `fun` (mine.flush). */
  mineDelete(minion: string, fun?: string): Promise<void>;
  /** The values pushed for any of `funs`, by minion then function; without `funs`, one minion's (`minion`). */
  mineGet(q: { funs?: string[]; minion?: string }): Promise<MineRow[]>;

  // ---- the reactor (issue 25) ----
  /**
   * Claims an event for reacting: true for the first master to claim `key` (the one that reacts),
   * false for every later claim of it (by this master or another of the cluster).
   */
  claimReaction(key: string, tag: string, master: string | null, depth: number): Promise<boolean>;
  /** Records a job a reaction published, with the event tag and chain depth. */
  noteReactorJob(jid: string, tag: string, depth: number): Promise<void>;
  /** The chain depth of a job a reaction published; undefined for any other job. */
  reactorDepthOf(jid: string): Promise<number | undefined>;
  /** The jobs reactions published, newest first. */
  reactorJobs(limit: number): Promise<ReactorJobRow[]>;
  /** Drops reaction claims and records older than `keepSeconds` (with the jobs' retention). */
  pruneReactions(keepSeconds: number, now?: number): Promise<void>;
}

/** One mine value as stored. */
export interface MineRow {
  minion: string;
  fun: string;
  value: unknown;
  pushed_at: string;
}

export interface ReactorJobRow {
  jid: string;
  tag: string;
  depth: number;
  created_at: string;
}

export interface StoredEvent {
  seq: number;
  tag: string;
  data: unknown;
  origin: string | null;
  created_at: string;
}

export function eventOf(r: Record<string, unknown>): StoredEvent {
  return {
    seq: Number(r.seq),
    tag: r.tag as string,
    data: JSON.parse(r.data as string),
    origin: (r.origin as string | null) ?? null,
    created_at: r.created_at as string,
  };
}

export interface KeyOp {
  minion: string;
  fingerprint: string;
  to: KeyState | 'deleted';
}
