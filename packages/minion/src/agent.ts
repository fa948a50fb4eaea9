import { EventEmitter } from 'node:events';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { collectGrains, createCommandRunner, type CommandRunner, type Logger, type ScheduleItem, type StateRegistry } from '@brine/core';
import { defaultRegistry } from '@brine/states';
import { PROTOCOL_VERSION, type ErrorMsg, type HostCallItem, type HostCallsMsg, type JobMsg } from '@brine/protocol';
import type { MinionConfig } from './config.js';
import { MasterConnection, type WorkFrame } from './connection.js';
import { minionErrors } from './errors.js';
import { bindArgs, execRegistry, readGrainsFile, type ExecRegistry } from '@brine/exec';
import { MINION_JOB_FUNCTIONS } from './exec-modules.js';
import { MinePusher } from './mine.js';
import { mineFunctions } from './mine-functions.js';
import { EVENT_FUNCTIONS } from './event-functions.js';
import { answerHostCalls } from './host-calls.js';
import { ensureIdentity } from './identity.js';
import { JobRunner } from './job-runner.js';
import { formatMaster } from './master-list.js';
import { MinionSchedule } from './schedule.js';
import { SCHEDULE_FUNCTIONS } from './schedule-functions.js';
import { ResultSpool, type SpooledReturn } from './spool.js';
import { SpoolSender } from './spool-sender.js';
import { FRAME_ROOM } from './trim.js';
import { STATE_FUNCTIONS } from './state-functions.js';
import { RefreshHooks } from './refresh.js';

export const MINION_VERSION = '0.1.0';

export interface AgentOptions {
  log: Logger;
  /** Replaces host grains (swarm benchmarks run many agents in one process). */
  grains?: Record<string, unknown>;
  cmd?: CommandRunner;
  /** State modules (defaults to every module of @brine/states). */
  registry?: StateRegistry;
  /**
   * For `brine call`: a session beside the daemon's (see MasterConnection), a spool in memory
   * (the daemon's spool.db is its own), and no recovery of the daemon's interrupted jobs.
   */
  call?: boolean;
}

/**
 * The minion agent: its connection to the master (MasterConnection: TLS pinning, enrollment,
 * backoff, requests) and its work (JobRunner: job queue, state lock, streamed results), with the
 * spool between them. Reports grains on every welcome, resends what the master has not
 * acknowledged, and answers the host calls of its compiles. Emits 'ready' (authenticated),
 * 'pending', 'return' and 'fatal'.
 */
export class MinionAgent extends EventEmitter {
  readonly id: string;
  private readonly spool: ResultSpool;
  /** Every function this minion runs: @brine/exec's and its own state.*, saltutil.*, mine.*, schedule.* and event.*. */
  readonly exec: ExecRegistry = execRegistry().register(
    ...MINION_JOB_FUNCTIONS,
    ...STATE_FUNCTIONS,
    ...SCHEDULE_FUNCTIONS,
    ...EVENT_FUNCTIONS,
    ...mineFunctions(
      () => this.mine,
      (op, args) => this.request(op, args),
    ),
  );
  /** mine_functions: pushed after the first welcome, every mine_interval, on mine.update. */
  readonly mine: MinePusher;
  private mineStarted = false;
  private readonly grains: Record<string, unknown>;
  /** Salt's `grains` file: grains.setval & co persist here, read over the collected grains (under the config's). */
  readonly grainsFile: string;
  /** Fired by saltutil.refresh_pillar, refresh_grains and sync_all (mine and schedule reload on it). */
  readonly refresh: RefreshHooks;
  private readonly baseGrains?: Record<string, unknown>;
  private readonly log: Logger;
  private readonly conn: MasterConnection;
  private readonly jobs: JobRunner;
  private readonly sender: SpoolSender;
  /** The daemon's schedule (a `brine call` has none: the daemon beside it runs it). */
  readonly schedule?: MinionSchedule;
  private schedulePillarLoaded = false;

  readonly config: MinionConfig;
  private readonly call: boolean;
  constructor(config: MinionConfig, opts: AgentOptions) {
    super();
    this.config = config;
    this.call = opts.call === true;
    this.id = config.id;
    this.log = opts.log.child({ minion: config.id });
    mkdirSync(config.data_dir, { recursive: true, mode: 0o700 });
    const identity = ensureIdentity(config.pki_dir);
    this.spool = new ResultSpool(opts.call ? ':memory:' : path.join(config.data_dir, 'spool.db'));
    this.grainsFile = path.join(config.data_dir, 'grains');
    this.baseGrains = opts.grains;
    this.refresh = new RefreshHooks((err, what) => this.log.error({ event: 'refresh_hook_failed', what, err }, `a ${what} refresh listener failed`));
    this.grains = this.collectGrains();
    this.conn = new MasterConnection(config, identity, this.log, MINION_VERSION, opts.call === true);
    this.sender = new SpoolSender({
      spool: this.spool,
      log: this.log,
      sendFrame: (text) => this.conn.sendFrame(text),
      connected: () => this.conn.connected,
      limits: () => ({ frame: this.conn.frameLimit, event: Math.min(config.max_event_size, this.conn.frameLimit - FRAME_ROOM) }),
      emit: (event, ...args) => this.emit(event, ...args),
    });
    this.jobs = new JobRunner({
      config,
      log: this.log,
      spool: this.spool,
      exec: this.exec,
      grains: this.grains,
      version: MINION_VERSION,
      cmd: opts.cmd ?? createCommandRunner(),
      registry: opts.registry ?? defaultRegistry(),
      sender: this.sender,
      connected: () => this.conn.connected,
      request: (op, args) => this.conn.request(op, args),
      emit: (event, ...args) => this.emit(event, ...args),
      grainsFile: this.grainsFile,
      grainsChanged: () => this.grainsChanged(),
      refreshGrains: () => this.refreshGrains(),
      refreshPillar: () => this.refreshPillar(),
      schedule: () => this.schedule,
    });
    this.mine = new MinePusher({
      config,
      log: this.log,
      exec: this.exec,
      request: (op, args) => this.conn.request(op, args),
      pillar: () => this.jobs.context('', 'mine.update', new AbortController().signal, false).pillar(),
      context: (fun) => this.jobs.context('', fun, new AbortController().signal, false),
      requestBytes: () => this.conn.frameLimit - FRAME_ROOM,
    });
    // a refreshed pillar may bring other mine_functions: read them again and reschedule
    if (!opts.call) this.refresh.onPillarRefresh(async (pillar) => void (await this.mine.reload(pillar)));
    if (!opts.call) {
      this.recoverInterrupted();
      this.schedule = new MinionSchedule({ dataDir: config.data_dir, config: config.schedule, log: this.log, run: (item) => this.runScheduled(item) });
      const schedule = this.schedule;
      this.refresh.onPillarRefresh((pillar) => schedule.load(pillar));
    }
    this.conn.on('welcome', () => this.onWelcome());
    this.conn.on('master-error', (msg: ErrorMsg) => this.onRefusal(msg));
    this.conn.on('work', (msg: WorkFrame) => this.onWork(msg));
    for (const event of ['pending', 'rejected', 'denied', 'fatal', 'master-error']) this.conn.on(event, (...args) => this.emit(event, ...args));
  }

  start(): void {
    // the config's and the saved entries run from the start, the pillar's once the master answers
    this.schedule?.load();
    this.conn.start();
  }

  get connected(): boolean {
    return this.conn.connected;
  }

  async stop(): Promise<void> {
    this.mine.stop();
    this.schedule?.stop();
    this.jobs.stop();
    await this.conn.stop();
    this.spool.close();
  }

  /** Asks the master; waits through reconnects (the request is sent again after a welcome). */
  request(op: string, args: Record<string, unknown>): Promise<unknown> {
    return this.conn.request(op, args);
  }

  /** Runs a job as if the master had sent it (`brine call`: a job it recorded with `job.new`). */
  runJob(job: Omit<JobMsg, 'v' | 'type'>): void {
    this.jobs.onJob({ v: PROTOCOL_VERSION, type: 'job', ...job });
  }

  /**
   * One run of a schedule entry: the master records it as a job of this minion (user
   * `schedule:<name>`), it runs like any job (state runs take the state lock, results are
   * spooled until acknowledged), and the run ends when it returned.
   */
  private async runScheduled(item: ScheduleItem): Promise<void> {
    const { jid } = (await this.conn.request('job.new', { fun: item.function, arg: item.args, kwarg: item.kwargs, schedule: item.name })) as { jid: string };
    this.log.info({ event: 'schedule_run', schedule: item.name, jid, fun: item.function }, `running scheduled job '${item.name}'`);
    await new Promise<void>((resolve) => {
      const done = (r: SpooledReturn) => {
        if (r.jid !== jid) return;
        this.off('return', done);
        resolve();
      };
      this.on('return', done);
      this.runJob({ jid, fun: item.function, arg: item.args, kwarg: item.kwargs });
    });
  }

  spooled(): number {
    return this.spool.size();
  }

  spooledStates(): number {
    return this.spool.stateSize();
  }

  /** The host's grains (or a swarm's), then the grains file, then the config's `grains:` (Salt's order). */
  private collectGrains(): Record<string, unknown> {
    const persisted = readGrainsFile(this.grainsFile);
    if (this.baseGrains) return { ...this.baseGrains, ...persisted, ...this.config.grains, id: this.config.id };
    return collectGrains(this.config.id, { ...persisted, ...this.config.grains }, MINION_VERSION);
  }

  private sendGrains(): void {
    this.conn.send({ type: 'grains', grains: this.grains, running: this.jobs.runningJids(), spool: this.spool.size() + this.spool.stateSize() });
  }

  /** grains.setval & co changed the live grains: the master's next compile sees them (a reconnect sends them anyway). */
  private async grainsChanged(): Promise<void> {
    if (this.conn.connected) this.sendGrains();
    await this.refresh.fireGrains(this.grains);
  }

  /** saltutil.refresh_grains: the live grains object is refilled in place (jobs hold it). */
  async refreshGrains(): Promise<void> {
    const fresh = this.collectGrains();
    for (const k of Object.keys(this.grains)) delete this.grains[k];
    Object.assign(this.grains, fresh);
    await this.grainsChanged();
  }

  /** saltutil.refresh_pillar: the master renders pillar per request, so this asks it once and tells the listeners. */
  async refreshPillar(): Promise<void> {
    const r = (await this.conn.request('pillar.items', {})) as { pillar: Record<string, unknown> };
    await this.refresh.firePillar(r.pillar);
  }

  private onWelcome(): void {
    this.sendGrains();
    // state results first: a job's return is only stored after its states
    const resent = this.sender.resendAll();
    const master = formatMaster(this.conn.master);
    this.log.info(
      { event: 'minion_ready', master, resent: resent.rets, resent_states: resent.states, reconnect_window: this.conn.reconnectWindowSeconds },
      `authenticated with the master ${master}`,
    );
    this.emit('ready');
    if (!this.call && !this.schedulePillarLoaded) {
      this.schedulePillarLoaded = true;
      this.startOnPillar().catch((err: unknown) => this.log.warn({ event: 'mine_reload_failed', err }, `mine: ${(err as Error).message}`));
    }
  }

  /**
   * At the first welcome the pillar is asked once, for both the schedule's and the mine's entries
   * (a fleet connecting at once makes one pillar render per minion, not two); then the mine's
   * first push (Salt's run_on_start). `brine call` does neither.
   */
  private async startOnPillar(): Promise<void> {
    let pillar: Record<string, unknown> | undefined;
    try {
      const r = (await this.conn.request('pillar.items', {})) as { pillar: Record<string, unknown>; errors?: string[] };
      if (r.errors?.length)
        this.log.warn({ event: 'schedule_pillar_errors', errors: r.errors }, 'the pillar has errors; its schedule and mine_functions are read as they came');
      pillar = r.pillar;
      this.schedule?.load(pillar);
    } catch (err) {
      this.schedulePillarLoaded = false;
      this.log.warn({ event: 'schedule_pillar_failed', err }, "the pillar's schedule was not loaded; tried again at the next connection");
    }
    if (this.mineStarted) {
      if (pillar) await this.mine.reload(pillar);
      return;
    }
    this.mineStarted = true;
    try {
      // without the pillar, the config's mine_functions only
      await this.mine.start(pillar ?? {});
      this.emit('mine-pushed');
    } catch (err) {
      this.log.warn({ event: 'mine_push_failed', err }, `mine: the first push failed: ${(err as Error).message}`);
    }
  }

  /** Jobs a previous process was running when it died are returned as failed. */
  private recoverInterrupted(): void {
    const rets = this.spool.recoverInterrupted((job) => {
      const message = minionErrors.message('BRINE_ERR_MINION_JOB_INTERRUPTED', job);
      const now = new Date().toISOString();
      // Salt answers a failed state run with a list of messages
      return {
        jid: job.jid,
        fun: job.fun,
        success: false,
        retcode: 1,
        return: job.fun.startsWith('state.') ? [message] : message,
        started: job.started,
        finished: now,
      };
    });
    for (const r of rets)
      this.log.warn(
        { event: 'job_interrupted', jid: r.jid, fun: r.fun, code: 'BRINE_ERR_MINION_JOB_INTERRUPTED' },
        'a job was interrupted by the last stop; returning it as failed',
      );
  }

  /**
   * The master refused a result frame (too large, invalid: trimmed and sent again, or set
   * aside), or refuses results for a job it does not know for this minion: that is final.
   */
  private onRefusal(msg: ErrorMsg): void {
    if (this.sender.onRefusal(msg)) return;
    if (msg.jid === undefined || (msg.code !== 'BRINE_ERR_MASTER_UNKNOWN_JOB' && msg.code !== 'BRINE_ERR_MASTER_NOT_YOUR_JOB')) return;
    const dropped = this.spool.drop(msg.jid);
    if (!dropped.ret && dropped.states === 0) return;
    this.log.warn(
      { event: 'spool_dropped', jid: msg.jid, code: msg.code, ret: dropped.ret, states: dropped.states },
      `the master refuses results of job ${msg.jid} for good (${msg.code}); dropped them from spool.db`,
    );
    this.emit('dropped', msg.jid);
  }

  private onWork(msg: WorkFrame): void {
    switch (msg.type) {
      case 'job':
        this.jobs.onJob(msg);
        return;
      case 'state_ack':
        this.spool.ackStates(msg.jid, msg.nums);
        this.emit('states-acked', msg.jid, msg.nums.length);
        return;
      case 'ack':
        this.spool.ack(msg.jid);
        this.log.debug({ event: 'ret_acked', jid: msg.jid }, 'the master stored the return');
        this.emit('acked', msg.jid);
        return;
      case 'host_calls':
        this.onHostCalls(msg).catch((err: unknown) => this.log.error({ event: 'host_calls_failed', jid: msg.jid, err }, 'host calls not answered'));
        return;
    }
  }

  /** The master compiles this minion's job and asks what only this host knows. */
  private async onHostCalls(msg: HostCallsMsg): Promise<void> {
    const answers = await answerHostCalls(msg.calls, (c) => this.runHostCall(c, msg.jid ?? ''), this.config.max_frame_bytes);
    this.log.debug({ event: 'host_calls', jid: msg.jid, calls: msg.calls.length }, 'answered host calls');
    this.conn.send({ type: 'host_answers', ref: msg.id, answers });
  }

  private async runHostCall(c: HostCallItem, jid: string): Promise<unknown> {
    const fn = this.exec.lookup(c.fun);
    // state functions run states, not queries: a template has no business starting one
    if (!fn || c.fun.startsWith('state.')) throw minionErrors.make('BRINE_ERR_MINION_UNKNOWN_FUNCTION', { fun: c.fun });
    const args = bindArgs(fn, c.args, c.kwargs);
    const result = await fn.run(args, this.jobs.context(jid, c.fun, new AbortController().signal, false));
    return result.return;
  }
}
