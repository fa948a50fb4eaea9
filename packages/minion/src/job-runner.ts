import path from 'node:path';
import { BrineError, toBrineError, type CommandRunner, type Logger, type StateRegistry, type StateResult } from '@brine/core';
import type { JobMsg, StateResultItem } from '@brine/protocol';
import type { MinionConfig } from './config.js';
import { minionErrors } from './errors.js';
import { bindArgs, type ExecRegistry } from '@brine/exec';
import type { MinionExecContext, RunningJob } from './exec-function.js';
import { remoteFileClient } from './remote-file-client.js';
import type { MinionSchedule } from './schedule.js';
import type { ResultSpool, SpooledReturn } from './spool.js';
import type { SpoolSender } from './spool-sender.js';
import { syncStates } from './sync-states.js';
import { stateRunningMessage } from './state-running.js';

interface Running extends RunningJob {
  abort: AbortController;
}

/** What the job runner needs of the minion around it. */
export interface JobRunnerDeps {
  config: MinionConfig;
  log: Logger;
  spool: ResultSpool;
  /** The execution functions: @brine/exec's and the minion's own (state.*, saltutil.*). */
  exec: ExecRegistry;
  grains: Record<string, unknown>;
  version: string;
  cmd: CommandRunner;
  registry: StateRegistry;
  /** Spools results and returns (trimmed to fit) and sends them to the master. */
  sender: SpoolSender;
  connected(): boolean;
  /** Asks the master (waits through reconnects). */
  request(op: string, args: Record<string, unknown>): Promise<unknown>;
  /** The agent's events ('return'). */
  emit(event: string, ...args: unknown[]): void;
  /** The grains file grains.setval & co write (Salt's `grains` file). */
  grainsFile: string;
  /** grains.setval & co changed the grains: the master hears at once. */
  grainsChanged(): Promise<void>;
  refreshGrains(): Promise<void>;
  refreshPillar(): Promise<void>;
  /** The daemon's schedule, for the schedule.* functions. */
  schedule?: () => MinionSchedule | undefined;
}

/**
 * The minion's work: jobs queued and run (at most `max_concurrent_jobs` at once), the one state
 * run at a time (Salt's "is running as PID" lock), state results streamed as they complete and
 * spooled with every return until the master acknowledges them.
 */
export class JobRunner {
  private readonly running = new Map<string, Running>();
  private readonly queue: JobMsg[] = [];
  /** Streamed state results not yet handed to the spool and the socket, by jid. */
  private readonly outbox = new Map<string, { fun: string; items: StateResultItem[] }>();
  private outboxScheduled = false;
  /** The state run holding this minion's lock (one highstate at a time). */
  private stateRun?: { jid: string; fun: string; started: Date };
  private stopped = false;
  private pureCtx?: MinionExecContext;

  private readonly deps: JobRunnerDeps;
  constructor(deps: JobRunnerDeps) {
    this.deps = deps;
  }

  /** Jids of the jobs running now (reported to the master after a reconnect). */
  runningJids(): string[] {
    return [...this.running.keys()];
  }

  /** Aborts every running job and sends what they streamed so far. */
  stop(): void {
    this.stopped = true;
    for (const r of this.running.values()) r.abort.abort();
    this.flushStates();
  }

  onJob(job: JobMsg): void {
    // a job that starts now is recorded as received and running in one commit
    const started = new Date().toISOString();
    const now = this.queue.length === 0 && this.running.size < this.maxJobs();
    if (now && !this.stopped && this.runPure(job, started)) return;
    if (!(now ? this.deps.spool.admit(job.jid, job.fun, started) : this.deps.spool.markSeen(job.jid))) {
      this.deps.log.info({ jid: job.jid }, 'job received twice; ignored');
      return;
    }
    if (now) this.start(job, started);
    else {
      this.queue.push(job);
      this.pump();
    }
  }

  private maxJobs(): number {
    return Math.max(1, this.deps.config.max_concurrent_jobs);
  }

  /**
   * What an execution function sees of the minion. `state` (the master channel, streaming, the
   * run lock) only for a job: a function called for a template's host call runs without it.
   */
  context(jid: string, fun: string, signal: AbortSignal, forJob: boolean): MinionExecContext {
    const { deps } = this;
    let pillar: Promise<Record<string, unknown>> | undefined;
    const ctx: MinionExecContext = {
      jid,
      grains: deps.grains,
      // asked of the master once per call context; its errors travel as Salt's `_errors` key
      pillar: () =>
        (pillar ??= deps.request('pillar.items', {}).then((r) => {
          const p = r as { pillar: Record<string, unknown>; errors?: string[] };
          return p.errors?.length ? { ...p.pillar, _errors: p.errors } : p.pillar;
        })),
      opts: deps.config as unknown as Record<string, unknown>,
      version: deps.version,
      signal,
      cmd: deps.cmd,
      registry: deps.exec,
      files: remoteFileClient((op, args) => deps.request(op, args), path.join(deps.config.data_dir, 'files'), forJob ? jid : undefined),
      cacheDir: deps.config.data_dir,
      grainsFile: deps.grainsFile,
      grainsChanged: () => deps.grainsChanged(),
      refreshGrains: () => deps.refreshGrains(),
      refreshPillar: () => deps.refreshPillar(),
      // a job's own function is a direct call (cmd.* through the shell); a template's host call is code
      direct: forJob,
      running: () => [...this.running.values()].map(({ abort: _a, ...r }) => r),
      ...(deps.schedule?.() ? { schedule: deps.schedule()! } : {}),
      kill: (id) => {
        const r = this.running.get(id);
        if (!r) return false;
        r.abort.abort();
        return true;
      },
    };
    if (!forJob) return ctx;
    const request = (op: string, args: Record<string, unknown>) => deps.request(op, args);
    ctx.state = {
      id: deps.config.id,
      fun,
      request,
      emit: (tag, result) => this.emitState(jid, fun, tag, result),
      claim: () => this.claimStateRun(jid, fun),
      files: ctx.files!,
      registry: deps.registry,
      syncStates: (saltenv) => syncStates(request, deps.config.data_dir, deps.registry, saltenv, jid),
    };
    return ctx;
  }

  private pump(): void {
    while (this.queue.length > 0 && this.running.size < this.maxJobs()) this.start(this.queue.shift()!);
  }

  /** Runs a job; `admitted`: the time it was recorded as running with (else it is recorded now). */
  private start(job: JobMsg, admitted?: string): void {
    this.execute(job, admitted).catch((err: unknown) => {
      // the spool could not record the job (a full disk, ...): it is dropped, the queue goes on
      this.running.delete(job.jid);
      this.deps.log.error({ event: 'job_failed', jid: job.jid, err }, 'job not run to the end');
      this.pump();
    });
  }

  private async execute(job: JobMsg, admitted?: string): Promise<void> {
    const { deps } = this;
    const started = admitted ?? new Date().toISOString();
    const abort = new AbortController();
    const entry: Running = { jid: job.jid, fun: job.fun, arg: job.arg, kwarg: job.kwarg, started, pid: process.pid, abort };
    this.running.set(job.jid, entry);
    if (admitted === undefined) deps.spool.begin(job.jid, job.fun, started);
    deps.log.info({ event: 'job_started', jid: job.jid, fun: job.fun }, 'job started');
    let out: SpooledReturn;
    try {
      const fn = deps.exec.get(job.fun);
      const args = bindArgs(fn, job.arg, job.kwarg);
      const result = await fn.run(args, this.context(job.jid, job.fun, abort.signal, true));
      out = abort.signal.aborted
        ? this.returnOf(job, started, minionErrors.message('BRINE_ERR_MINION_JOB_KILLED', { jid: job.jid }), 1)
        : this.returnOf(job, started, result.return, result.retcode ?? 0);
    } catch (err) {
      out = this.failedReturn(job, started, err);
    }
    this.running.delete(job.jid);
    // every streamed state result is spooled (and sent) before the return
    this.flushStates();
    if (!this.stopped) {
      const sent = deps.sender.finish(out);
      this.finished(out, sent);
    }
    this.pump();
  }

  /**
   * A pure function (test.ping: synchronous, no context, no side effect) runs on receipt, its
   * return sent at once and held in memory until acked (recomputable: no spool statement, no
   * received mark; ResultSpool.hold), never recorded as running. False when it is not pure.
   */
  private runPure(job: JobMsg, started: string): boolean {
    const fn = this.deps.exec.lookup(job.fun);
    if (fn?.pure !== true) return false;
    const done = this.deps.sender.admitFinished(job.jid, started, () => {
      this.deps.log.info({ event: 'job_started', jid: job.jid, fun: job.fun }, 'job started');
      try {
        const result = fn.run(bindArgs(fn, job.arg, job.kwarg), this.pureContext());
        if (result instanceof Promise) throw new BrineError('BRINE_ERR_CORE_INTERNAL', `${job.fun} is marked pure but returned a promise`);
        return this.returnOf(job, started, result.return, result.retcode ?? 0);
      } catch (err) {
        return this.failedReturn(job, started, err);
      }
    });
    if (done) this.finished(done.ret, done.sent);
    else this.deps.log.info({ jid: job.jid }, 'job received twice; ignored');
    return true;
  }

  /**
   * The context pure functions are handed: they read nothing of it (ExecFunction.pure), so one
   * serves every pure job instead of a job's own (a file client, path joins, closures) being
   * made for each ping on every minion of a fleet.
   */
  private pureContext(): MinionExecContext {
    return (this.pureCtx ??= this.context('', '', new AbortController().signal, false));
  }

  private returnOf(job: JobMsg, started: string, ret: unknown, retcode: number): SpooledReturn {
    return { jid: job.jid, fun: job.fun, success: retcode === 0, retcode, return: ret, started, finished: new Date().toISOString() };
  }

  private failedReturn(job: JobMsg, started: string, err: unknown): SpooledReturn {
    const e = toBrineError(err);
    if (e.code === 'BRINE_ERR_CORE_INTERNAL') this.deps.log.error({ err, jid: job.jid }, 'function failed');
    // Salt answers a refused or failed state run with a list of messages
    return this.returnOf(job, started, e.code === 'BRINE_ERR_MINION_STATE_RUNNING' || job.fun.startsWith('state.') ? [e.message] : e.message, 1);
  }

  private finished(out: SpooledReturn, sent: boolean): void {
    this.deps.log.info({ event: 'job_done', jid: out.jid, fun: out.fun, success: out.success, sent }, 'job finished');
    this.deps.emit('return', out);
  }

  private emitState(jid: string, fun: string, tag: string, result: StateResult): void {
    let box = this.outbox.get(jid);
    if (!box) this.outbox.set(jid, (box = { fun, items: [] }));
    box.items.push({ run_num: result.__run_num__ ?? box.items.length, tag, ret: result as unknown as Record<string, unknown> });
    if (!this.outboxScheduled) {
      this.outboxScheduled = true;
      setImmediate(() => this.flushStates());
    }
  }

  /** Spools and sends the state results gathered since the last flush (frames batched by bytes). */
  private flushStates(): void {
    this.outboxScheduled = false;
    for (const [jid, box] of this.outbox) {
      this.outbox.delete(jid);
      if (box.items.length > 0) this.deps.sender.streamStates(jid, box.fun, box.items);
    }
  }

  private claimStateRun(jid: string, fun: string): () => void {
    const cur = this.stateRun;
    if (cur) throw new BrineError('BRINE_ERR_MINION_STATE_RUNNING', stateRunningMessage(cur.fun, cur.jid, cur.started));
    this.stateRun = { jid, fun, started: new Date() };
    return () => {
      if (this.stateRun?.jid === jid) this.stateRun = undefined;
    };
  }
}
