import { checkTarget, matchTarget, type TargetType, TARGET_TYPES } from '@brine/compiler';
import { BrineError, type Logger } from '@brine/core';
import { encode, type RetMsg, type StateResultsMsg } from '@brine/protocol';
import { AckBatcher } from './ack-batch.js';
import { masterErrors } from './errors.js';
import type { EventBus } from './event-bus.js';
import type { MinionHub, Session } from './hub.js';
import { JidGenerator } from './jid.js';
import type { KeyManager } from './keys.js';
import { isHighstateJob, normalizeResult } from './state-results.js';
import { parseStoredReturn, type JobRow, type ReturnRow, type StoredReturn } from './store.js';
import type { StoreBackend } from './store-backend.js';
import type { ClusterLink } from './cluster.js';
import { setImmediate as nextTurn } from 'node:timers/promises';

export interface JobRequest {
  tgt: string | string[];
  tgt_type?: TargetType;
  fun: string;
  arg?: unknown[];
  kwarg?: Record<string, unknown>;
  /** Sliding window: at most this many (or this percentage of) minions run the job at once. */
  batch?: string | number | null;
  /** Seconds a batch slot waits for a minion before moving on. */
  timeout?: number;
  user?: string;
  /** The orchestration whose step publishes this job. */
  parent_jid?: string;
  /** Throws when the caller may not run this job on these minions (external_auth), before anything is stored. */
  authorize?: (minions: string[]) => Promise<void>;
}

export interface MissingMinion {
  minion: string;
  reason: 'no response' | 'not connected';
}

/** A minion's return in a report: what it sent and when it was stored. */
export type ReportedReturn = Omit<ReturnRow, 'jid' | 'minion'>;

/** `R`: how each return is held (parsed, or as the JSON text a reply splices in: routes/report-json.ts). */
export interface JobReport<R = ReportedReturn> {
  jid: string;
  job: JobRow;
  returns: Record<string, R>;
  missing: MissingMinion[];
  done: boolean;
  /** While it runs: the states each minion's compile planned (the console's "x of N states"). */
  planned?: Record<string, number>;
}

interface LiveJob {
  job: JobRow;
  /** The job frame, encoded once for every minion it goes to. */
  frame: Buffer;
  /** Its ack frame, likewise (made at the first return). */
  ack?: Buffer;
  /** The expected minions, for the check each result makes. */
  expected: Set<string>;
  /** Sent and not yet returned. */
  pending: Set<string>;
  /** Minions not sent yet (batch mode: waiting for a slot); `queue[head]` goes next. */
  queue: string[];
  head: number;
  /** A later turn of the event loop sends the rest (set while one is scheduled). */
  sending?: NodeJS.Immediate;
  window: number;
  notConnected: Set<string>;
  /** Cluster: minions connected to another master (it sends them the job). */
  remote: Set<string>;
  slotTimers: Map<string, NodeJS.Timeout>;
  waiters: Array<() => void>;
  timeout: number;
  /** States per minion its compile for this job planned (known on the master that compiled). */
  planned?: Map<string, number>;
}

/** Parses `--batch`: `N` minions or `N%` of the targeted ones, at least one. */
export function batchSize(batch: string | number, total: number): number {
  const s = String(batch).trim();
  const m = /^(\d+(?:\.\d+)?)(%?)$/.exec(s);
  if (!m || Number(m[1]) <= 0) throw masterErrors.make('BRINE_ERR_MASTER_BAD_BATCH', { batch: s });
  const n = m[2] ? Math.ceil((Number(m[1]) / 100) * total) : Math.floor(Number(m[1]));
  return Math.max(1, n);
}

/**
 * Job frames sent per turn of the event loop: one send (TLS, a write to the socket) costs tens of
 * microseconds, so a job to 10,000 minions goes out in turns that leave the loop free for the API,
 * returns and pings in between.
 */
export const SENDS_PER_TURN = 200;
/** Minions matched against a target per turn of the event loop (grains are read from memory). */
const MATCHES_PER_TURN = 2000;

/** What the job manager works with (the master wires it up). */
export interface JobManagerDeps {
  store: StoreBackend;
  /** The newest jid stored when the master started: new jids sort after it. */
  lastJid: string | null;
  hub: MinionHub;
  keys: KeyManager;
  events: EventBus;
  log: Logger;
  nodegroups: Record<string, string | string[]>;
  defaultTimeout: number;
  /** The master cluster, when the store is shared (PostgreSQL). */
  cluster?: ClusterLink;
  /** The content hash of the trees a job compiles against (recorded with the job in a cluster). */
  treeHash?: (jid: string) => Promise<string>;
  /** Pillar of a minion, for pillar targets (-I, I@); the jid the targeting is for. */
  pillarOf?: (id: string, grains: Record<string, unknown>, jid?: string) => Promise<Record<string, unknown>>;
}

/**
 * Targets, publishes and follows jobs. A job row and its expected minions are committed before
 * any minion hears of it; returns are committed before anyone is told about them.
 */
export class JobManager {
  private readonly jids: JidGenerator;
  private readonly live = new Map<string, LiveJob>();
  /** Cluster: jobs of other masters this one sent to its minions (answered without the store). */
  private readonly forOthers = new Map<string, { expected: Set<string>; at: number }>();
  private sweeper: NodeJS.Timeout;
  /** Turns of the event loop publishing took (`/v1/stats`). */
  readonly stats = { publish_turns: 0 };
  /** Acks held to ride with the next frame to their minion. */
  readonly acks: AckBatcher;

  private readonly deps: JobManagerDeps;

  constructor(deps: JobManagerDeps) {
    this.deps = deps;
    this.jids = new JidGenerator(deps.lastJid);
    this.acks = new AckBatcher(deps.hub);
    deps.hub.handlers = {
      onReturn: (s, r) => this.onReturn(s, r),
      onStateResults: (s, m) => this.onStateResults(s, m),
      onGone: (m) => this.onGone(m),
    };
    this.sweeper = setInterval(() => this.sweep(), 60_000);
    this.sweeper.unref();
    if (deps.cluster) {
      // another master sends a job to minions connected here, and hears their returns through the store
      deps.events.subscribe('brine/job/*/send', (ev) => {
        if (ev.origin) this.sendForOther(ev.data as { jid: string; minions: string[] }).catch((err: unknown) => this.storeFailed(err));
      });
      deps.events.subscribe('brine/job/*/ret/*', (ev) => {
        if (!ev.origin) return;
        const d = ev.data as { jid: string; id: string };
        const live = this.live.get(d.jid);
        if (live) this.release(live, d.id);
      });
    }
  }

  /** Cluster: a job published on another master, for minions connected to this one. */
  private async sendForOther(d: { jid: string; minions: string[] }): Promise<void> {
    const here = d.minions.filter((m) => this.deps.hub.sessions.has(m));
    if (here.length === 0) return;
    const job = await this.deps.store.getJob(d.jid);
    if (!job) return;
    this.forOthers.set(job.jid, { expected: new Set(job.expected), at: Date.now() });
    const frame = Buffer.from(encode({ type: 'job', jid: job.jid, fun: job.fun, arg: job.arg, kwarg: job.kwarg }));
    for (const m of here) {
      const session = this.deps.hub.sessions.get(m);
      if (!session) continue;
      session.running.add(job.jid);
      this.acks.sendWith(session, frame);
    }
    this.deps.log.info({ jid: job.jid, minions: here.length }, 'job sent for another master');
  }

  /**
   * Ids of accepted minions the target matches, from the grains cache. With `jid`, pillar
   * targets read the pillar tree the job's compiles will use.
   */
  async resolve(tgt: string | string[], type: TargetType, jid?: string): Promise<string[]> {
    if (!TARGET_TYPES.includes(type)) {
      throw masterErrors.make('BRINE_ERR_MASTER_BAD_REQUEST', { detail: `unknown target type '${type}'` });
    }
    const opts = { nodegroups: this.deps.nodegroups };
    const diags = checkTarget(tgt, type, opts);
    if (diags.length > 0) throw new BrineError(diags[0]!.code, diags[0]!.message, {}, diags);
    const accepted = (await this.deps.keys.acceptedIds()).sort();
    // pillar is compiled only when the expression can look at it
    const needsPillar = type === 'pillar' || type === 'pillar_pcre' || (type === 'compound' && /(^|[\s(])[IJ]@/.test(String(tgt)));
    const out: string[] = [];
    for (let i = 0; i < accepted.length; i++) {
      const id = accepted[i]!;
      // matching 10,000 minions' grains takes a while: other work goes on between parts
      if (i % MATCHES_PER_TURN === MATCHES_PER_TURN - 1) await nextTurn();
      const g = await this.deps.hub.grainsOf(id);
      const pillar = needsPillar && this.deps.pillarOf ? await this.deps.pillarOf(id, g, jid) : undefined;
      if (matchTarget(tgt, type, pillar ? { id, grains: g, pillar } : { id, grains: g }, opts)) out.push(id);
    }
    return out;
  }

  async publish(req: JobRequest): Promise<{ jid: string; minions: string[]; not_connected: string[] }> {
    const type = req.tgt_type ?? 'glob';
    // the jid first: pillar targeting and the job's compiles then share one pillar snapshot
    const jid = this.jids.next();
    const minions = await this.resolve(req.tgt, type, jid);
    await req.authorize?.(minions);
    if (minions.length === 0) {
      throw masterErrors.make('BRINE_ERR_MASTER_NO_MINIONS', { target: String(req.tgt), type });
    }
    const window = req.batch !== undefined && req.batch !== null ? batchSize(req.batch, minions.length) : minions.length;
    const job: JobRow = {
      jid,
      fun: req.fun,
      arg: req.arg ?? [],
      kwarg: req.kwarg ?? {},
      target: req.tgt,
      tgt_type: type,
      user: req.user ?? 'root',
      batch: req.batch !== undefined && req.batch !== null ? String(req.batch) : null,
      created_at: new Date().toISOString(),
      expected: minions,
      ...(this.deps.cluster && this.deps.treeHash ? { tree_hash: await this.deps.treeHash(jid) } : {}),
      ...(req.parent_jid ? { parent_jid: req.parent_jid } : {}),
    };
    await this.deps.store.insertJob(job);
    if (isHighstateJob(job.fun, job.arg, job.kwarg)) await this.deps.store.markHighstate(jid);
    const live: LiveJob = {
      job,
      frame: Buffer.from(encode({ type: 'job', jid, fun: job.fun, arg: job.arg, kwarg: job.kwarg })),
      expected: new Set(minions),
      pending: new Set(),
      queue: [],
      head: 0,
      window,
      notConnected: new Set(),
      remote: new Set(),
      slotTimers: new Map(),
      waiters: [],
      timeout: req.timeout ?? this.deps.defaultTimeout,
    };
    const elsewhere = this.deps.cluster ? await this.deps.cluster.presence() : {};
    for (const m of minions) {
      if (this.deps.hub.sessions.has(m)) live.queue.push(m);
      else if (elsewhere[m] !== undefined && elsewhere[m] !== this.deps.cluster?.id) {
        live.remote.add(m);
        live.queue.push(m);
      } else live.notConnected.add(m);
    }
    this.live.set(jid, live);
    this.deps.events.fire(`brine/job/${jid}/new`, {
      jid,
      fun: job.fun,
      arg: job.arg,
      kwarg: job.kwarg,
      tgt: job.target,
      tgt_type: type,
      minions,
      user: job.user,
      ...(req.parent_jid ? { parent_jid: req.parent_jid } : {}),
    });
    this.deps.log.info({ jid, fun: job.fun, minions: minions.length }, 'job published');
    this.fill(live);
    return { jid, minions, not_connected: [...live.notConnected] };
  }

  /**
   * A job a minion runs on its own host (`brine call`, Salt's salt-call, or a run of its
   * schedule): stored with that minion as its only expected one, so its state results and return
   * are taken and kept like any job's and `brine jobs show` finds it. A schedule's run is the
   * user `schedule:<name>`. Nothing is sent: the minion runs it.
   */
  async recordCall(minion: string, fun: string, arg: unknown[], kwarg: Record<string, unknown>, schedule?: string): Promise<string> {
    const jid = this.jids.next();
    const job: JobRow = {
      jid,
      fun,
      arg,
      kwarg,
      target: minion,
      tgt_type: 'glob',
      user: schedule === undefined ? 'brine call' : `schedule:${schedule}`,
      batch: null,
      created_at: new Date().toISOString(),
      expected: [minion],
      ...(this.deps.cluster && this.deps.treeHash ? { tree_hash: await this.deps.treeHash(jid) } : {}),
    };
    await this.deps.store.insertJob(job);
    if (isHighstateJob(fun, arg, kwarg)) await this.deps.store.markHighstate(jid);
    this.deps.events.fire(`brine/job/${jid}/new`, {
      jid,
      fun,
      arg,
      kwarg,
      tgt: minion,
      tgt_type: 'glob',
      minions: [minion],
      user: job.user,
      ...(schedule === undefined ? {} : { schedule }),
    });
    this.deps.log.info(
      { jid, fun, minion, ...(schedule === undefined ? {} : { schedule }) },
      schedule === undefined ? 'brine call job recorded' : 'scheduled job recorded',
    );
    return jid;
  }

  /**
   * A runner's job (`state.orchestrate`): stored with the master's own minion id as its only
   * expected one and kept live until finishRunner, so `wait`, reports and `brine jobs show` treat
   * it like any job. Nothing is sent to a minion.
   */
  async recordRunner(req: { fun: string; arg: unknown[]; kwarg: Record<string, unknown>; user: string }, self: string): Promise<string> {
    const jid = this.jids.next();
    const job: JobRow = { jid, ...req, target: self, tgt_type: 'glob', batch: null, created_at: new Date().toISOString(), expected: [self] };
    await this.deps.store.insertJob(job);
    const live: LiveJob = {
      job,
      frame: Buffer.alloc(0),
      expected: new Set([self]),
      pending: new Set([self]),
      queue: [],
      head: 0,
      window: 1,
      notConnected: new Set(),
      remote: new Set(),
      slotTimers: new Map(),
      waiters: [],
      timeout: this.deps.defaultTimeout,
    };
    this.live.set(jid, live);
    this.deps.events.fire(`brine/job/${jid}/new`, {
      jid,
      fun: req.fun,
      arg: req.arg,
      kwarg: req.kwarg,
      tgt: self,
      tgt_type: 'glob',
      minions: [self],
      user: req.user,
    });
    this.deps.log.info({ jid, fun: req.fun }, 'runner job recorded');
    return jid;
  }

  /** A runner's job is done: its return is stored (then told on the bus) and its waiters released. */
  async finishRunner(jid: string, self: string, ret: { success: boolean; retcode: number; return: unknown; started: string }): Promise<void> {
    const finished = new Date().toISOString();
    const fun = this.live.get(jid)?.job.fun ?? 'runner';
    await this.deps.store.insertReturn({ jid, minion: self, fun, ...ret, finished });
    this.deps.events.fire(`brine/job/${jid}/ret/${self}`, { jid, id: self, fun, success: ret.success, retcode: ret.retcode, return: ret.return });
    const live = this.live.get(jid);
    if (live) this.release(live, self);
  }

  /** A minion compiled this job's states: `states` will run (kept while the job is live). */
  planned(jid: string, minion: string, states: number): void {
    const live = this.live.get(jid);
    if (live?.expected.has(minion)) (live.planned ??= new Map()).set(minion, states);
  }

  private queued(live: LiveJob): number {
    return live.queue.length - live.head;
  }

  /**
   * Sends the job to queued minions while the window has room, at most SENDS_PER_TURN in this
   * turn of the event loop; the next turn sends on.
   */
  private fill(live: LiveJob): void {
    if (live.sending) return;
    // each return releases its slot: with nothing queued only the waiters may be due
    if (this.queued(live) === 0) return this.settle(live);
    const sent: string[] = [];
    const forOthers: string[] = [];
    while (this.queued(live) > 0 && live.pending.size < live.window) {
      if (sent.length === SENDS_PER_TURN) {
        live.sending = setImmediate(() => {
          live.sending = undefined;
          this.fill(live);
        });
        break;
      }
      const m = live.queue[live.head++]!;
      const session = this.deps.hub.sessions.get(m);
      if (!session && !live.remote.has(m)) {
        live.notConnected.add(m);
        continue;
      }
      sent.push(m);
      live.pending.add(m);
      if (session) {
        session.running.add(live.job.jid);
        this.acks.sendWith(session, live.frame);
      } else forOthers.push(m);
      if (live.window < live.job.expected.length) {
        // in a batch a silent minion must not hold its slot for ever
        const t = setTimeout(() => this.release(live, m), live.timeout * 1000);
        t.unref();
        live.slotTimers.set(m, t);
      }
    }
    // the masters these minions are connected to send them the job (they follow the events)
    if (forOthers.length > 0) this.deps.events.fire(`brine/job/${live.job.jid}/send`, { jid: live.job.jid, minions: forOthers });
    // a batch tells who it runs on each time it sends (Salt's "Executing run on [...]")
    if (sent.length > 0 && live.window < live.job.expected.length) {
      this.deps.events.fire(`brine/job/${live.job.jid}/batch`, { jid: live.job.jid, minions: sent });
    }
    if (sent.length > 0) this.stats.publish_turns++;
    if (live.head === live.queue.length) {
      live.queue = [];
      live.head = 0;
    }
    this.settle(live);
  }

  private release(live: LiveJob, minion: string): void {
    const t = live.slotTimers.get(minion);
    if (t) clearTimeout(t);
    live.slotTimers.delete(minion);
    if (live.pending.delete(minion)) this.fill(live);
  }

  private settle(live: LiveJob): void {
    if (live.pending.size === 0 && this.queued(live) === 0) {
      const waiters = live.waiters;
      live.waiters = [];
      for (const w of waiters) w();
    }
  }

  /**
   * Jobs this master knows answer from memory: a store that is away (restarting) does not drop
   * results, and 10,000 returns ask the store nothing.
   */
  private knows(jid: string, minion: string): boolean {
    return !!(this.live.get(jid)?.expected.has(minion) || this.forOthers.get(jid)?.expected.has(minion));
  }

  /** A minion reporting on a job that did not target it is refused (and counted): true then. */
  private async rejectForeign(session: Session, msg: RetMsg | StateResultsMsg): Promise<boolean> {
    const minion = session.minion!;
    if (this.knows(msg.jid, minion) || (await this.deps.store.isExpected(msg.jid, minion))) return false;
    // final either way (the job is unknown, pruned, or not this minion's): the minion drops it
    const e = (await this.deps.store.getJob(msg.jid))
      ? masterErrors.make('BRINE_ERR_MASTER_NOT_YOUR_JOB', { minion, jid: msg.jid })
      : masterErrors.make('BRINE_ERR_MASTER_UNKNOWN_JOB', { minion, jid: msg.jid });
    this.deps.log.warn({ minion, jid: msg.jid, code: e.code }, e.message);
    this.deps.hub.stats.invalid_frames++;
    this.deps.hub.send(session, { type: 'error', code: e.code, message: e.message, jid: msg.jid, ...(msg.id ? { ref: msg.id } : {}) });
    return true;
  }

  /** A store call nothing waits on failed: logged (the minion resends what was not acked). */
  private storeFailed(err: unknown): void {
    this.deps.log.error({ event: 'store_failed', err: (err as Error).message }, 'master store call failed');
  }

  private onReturn(session: Session, ret: RetMsg): void {
    this.handleReturn(session, ret).catch((err: unknown) => this.storeFailed(err));
  }

  private async handleReturn(session: Session, ret: RetMsg): Promise<void> {
    const minion = session.minion!;
    if (!this.knows(ret.jid, minion) && (await this.rejectForeign(session, ret))) return;
    session.running.delete(ret.jid);
    const inserted = await this.deps.store.insertReturn({
      jid: ret.jid,
      minion,
      fun: ret.fun,
      success: ret.success,
      retcode: ret.retcode,
      return: ret.return,
      started: ret.started,
      finished: ret.finished,
    });
    // the minion may have reconnected since: the ack goes to its current session (a call's to itself)
    const current = session.call ? session : this.deps.hub.sessions.get(minion);
    const live = this.live.get(ret.jid);
    // one ack frame for every minion of a live job
    if (current) this.acks.ack(current, live ? (live.ack ??= Buffer.from(encode({ type: 'ack', jid: ret.jid }))) : encode({ type: 'ack', jid: ret.jid }));
    if (!inserted) return;
    const retTag = `brine/job/${ret.jid}/ret/${minion}`;
    // a return is stored once per job and minion, whichever master took it: the tag is the occurrence
    this.deps.events.fire(retTag, { jid: ret.jid, id: minion, fun: ret.fun, success: ret.success, retcode: ret.retcode, return: ret.return }, retTag);
    if (live) this.release(live, minion);
  }

  private onStateResults(session: Session, msg: StateResultsMsg): void {
    this.handleStateResults(session, msg).catch((err: unknown) => this.storeFailed(err));
  }

  private async handleStateResults(session: Session, msg: StateResultsMsg): Promise<void> {
    const minion = session.minion!;
    if (!this.knows(msg.jid, minion) && (await this.rejectForeign(session, msg))) return;
    const nums = msg.results.map((r) => r.run_num);
    await this.deps.store.insertStateResults(msg.jid, minion, msg.results);
    const current = session.call ? session : this.deps.hub.sessions.get(minion);
    if (current) this.acks.ack(current, encode({ type: 'state_ack', jid: msg.jid, nums }));
    this.deps.events.fire(`brine/job/${msg.jid}/prog/${minion}`, {
      jid: msg.jid,
      id: minion,
      fun: msg.fun,
      results: msg.results.map((r) => {
        const { result, changed, duration } = normalizeResult(r.ret);
        return { run_num: r.run_num, tag: r.tag, result, changed, duration };
      }),
    });
    // a failed state is an event of its own (a reactor's trigger); a resent one is the same occurrence
    for (const r of msg.results) {
      if (r.ret.result !== false) continue;
      const tag = `brine/job/${msg.jid}/failed/${minion}`;
      const { name, comment, __id__, __sls__ } = r.ret;
      this.deps.events.fire(
        tag,
        { jid: msg.jid, id: minion, fun: msg.fun, run_num: r.run_num, state_tag: r.tag, __id__, __sls__, name, comment },
        `${tag}/${r.run_num}`,
      );
    }
  }

  private onGone(minion: string): void {
    for (const live of this.live.values()) {
      if (live.window < live.job.expected.length && live.pending.has(minion)) this.release(live, minion);
    }
  }

  /** Resolves when every sent minion has returned, or after `timeoutSec`. */
  async wait(jid: string, timeoutSec: number): Promise<JobReport> {
    await this.settled(jid, timeoutSec);
    return (await this.report(jid))!;
  }

  /** Resolves when every sent minion has returned, or after `timeoutSec`, with its returns committed. */
  async settled(jid: string, timeoutSec: number): Promise<void> {
    const live = this.live.get(jid);
    if (live && (live.pending.size > 0 || this.queued(live) > 0)) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, timeoutSec * 1000);
        function done() {
          clearTimeout(timer);
          resolve();
        }
        live.waiters.push(done);
      });
    }
    // returns committed in the same tick as the last one must be visible to the report
    await this.deps.store.flush();
  }

  report(jid: string): Promise<JobReport | null> {
    return this.reportAs(jid, (r) => {
      const { jid: _j, minion: _m, ...rest } = parseStoredReturn(r);
      return rest;
    });
  }

  /** The report with each return as `each` makes it from the stored row. */
  async reportAs<R>(jid: string, each: (r: StoredReturn) => R): Promise<JobReport<R> | null> {
    const job = await this.deps.store.getJob(jid);
    if (!job) return null;
    const returns: Record<string, R> = {};
    for (const [minion, r] of await this.deps.store.returnsAs(jid, (r) => [r.minion, each(r)] as const)) returns[minion] = r;
    const live = this.live.get(jid);
    const missing: MissingMinion[] = job.expected
      .filter((m) => !(m in returns))
      .map((m) => ({
        minion: m,
        reason: live?.notConnected.has(m) ? 'not connected' : 'no response',
      }));
    const done = missing.length === 0 || (!!live && live.pending.size === 0 && this.queued(live) === 0);
    return { jid, job, returns, missing, done, ...(live?.planned && !done ? { planned: Object.fromEntries(live.planned) } : {}) };
  }

  /** Jobs some connected minion is still running (as far as the master knows). */
  async active(): Promise<Array<{ jid: string; fun: string; target: string | string[]; created_at: string; running: string[] }>> {
    const byJid = new Map<string, string[]>();
    for (const [id, s] of this.deps.hub.sessions) {
      for (const jid of s.running) {
        const ids = byJid.get(jid);
        if (ids) ids.push(id);
        else byJid.set(jid, [id]);
      }
    }
    const out = [];
    for (const [jid, running] of [...byJid].sort(([a], [b]) => a.localeCompare(b))) {
      const job = this.live.get(jid)?.job ?? (await this.deps.store.getJob(jid));
      if (!job) continue;
      out.push({ jid, fun: job.fun, target: job.target, created_at: job.created_at, running: running.sort() });
    }
    return out;
  }

  private sweep(): void {
    const cutoff = Date.now() - 3600_000;
    for (const [jid, f] of this.forOthers) if (f.at < cutoff) this.forOthers.delete(jid);
    for (const [jid, live] of this.live) {
      if (Date.parse(live.job.created_at) < cutoff && live.waiters.length === 0) {
        for (const t of live.slotTimers.values()) clearTimeout(t);
        this.live.delete(jid);
      }
    }
  }

  close(): void {
    clearInterval(this.sweeper);
    this.acks.close();
    for (const live of this.live.values()) {
      for (const t of live.slotTimers.values()) clearTimeout(t);
      if (live.sending) clearImmediate(live.sending);
      for (const w of live.waiters) w();
    }
  }
}
