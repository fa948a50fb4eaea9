import {
  ChunkIndex,
  chunkTag,
  REQUISITE_KEYS,
  type Availability,
  type CommandRunner,
  type ExecCaller,
  type FileClient,
  type LowChunk,
  type RunningDict,
  type StateContext,
  type StateModule,
  type StateRegistry,
  type StateResult,
  type StateReturn,
} from '@brine/core';
import { bindArguments } from './arg-bind-resolve.js';
import { callChunk, isThenable, type CallEnv, type Maybe } from './call-chunk.js';
import { elapsed, startClock, type Clock } from './clock.js';
import { runtimeErrors } from './errors.js';
import { foldListenIn } from './listen-in.js';
import {
  failedComment,
  lookupRequisites,
  notFoundComment,
  requisiteStatus,
  type EvalKind,
  type RequisiteLookup,
  type ResolvedRequisite,
} from './requisite-status.js';
import { setImmediate as nextTurn } from 'node:timers/promises';

export interface RunOptions {
  registry: StateRegistry;
  /** Salt's test=True: nothing changes; functions get `ctx.test` and say what they would do. */
  test?: boolean;
  cmd: CommandRunner;
  files: FileClient;
  templateContext?: Record<string, unknown>;
  /** Called as each result lands (the minion streams these). Not called for prereq dry runs. */
  onResult?: (tag: string, result: StateResult) => void;
  /** Stops the run between states; states not started are absent from the running dict. */
  signal?: AbortSignal;
  /** The clock for `start_time` (tests pin it). */
  now?: () => Date;
  /** Salt's global `failhard` option: the first failure stops the run. */
  failhard?: boolean;
  /** How retry waits between attempts (tests make it instant). */
  sleep?: (ms: number) => Promise<void>;
  /**
   * The shell command strings run in when a state names none (cmd states, onlyif/unless,
   * check_cmd). Defaults to the `shell` grain of `templateContext`, as Salt's default is the
   * minion's shell grain; without either, the runner's own default.
   */
  shell?: string;
  /** The host's execution functions (unless/onlyif `fun:`, module.run); absent where there are none. */
  exec?: ExecCaller;
}

export interface RunOutcome {
  running: RunningDict;
  /** 0 when every state succeeded (or would change, in test mode), 2 when one failed. */
  retcode: number;
  /** Why the run ended early, when it did. */
  stopped?: 'failhard' | 'aborted';
}

/**
 * Salt's `onfail_stop: False` on an onfail handler: a failed state whose handlers (those that
 * set it) all succeeded does not fail the run. Salt counts the last handler it looks at; Brine
 * needs every one of them to have succeeded.
 */
function onfailHandled(tag: string, chunks: LowChunk[], running: RunningDict): boolean {
  const failed = chunks.find((c) => chunkTag(c) === tag);
  if (!failed) return false;
  const handlers = chunks.filter(
    (h) =>
      h.onfail_stop === false &&
      Array.isArray(h.onfail) &&
      (h.onfail as unknown[]).some(
        (req) => req !== null && typeof req === 'object' && Object.entries(req).some(([mod, id]) => mod === failed.state && id === failed.__id__),
      ),
  );
  if (handlers.length === 0) return false;
  return handlers.every((h) => running[chunkTag(h)]?.result === true);
}

/** What a listener's mod_watch chunk drops: it has run, its requisites are spent. */
const REQ_FREE_KEYS = [...REQUISITE_KEYS, 'onfail_all'];

/** Requisite recursion this deep hands the rest of a chain to `warm` (the stack is finite). */
const WARM_DEPTH = 64;

/** A run of states that return without a promise gives the event loop a turn after this many states, or this long. */
const YIELD_STATES = 1000;
const YIELD_MS = 10;

const SALT_KEYS: ReadonlySet<string> = new Set(['name', 'changes', 'result', 'comment', '__sls__', '__run_num__', '__id__', 'start_time', 'duration']);

function grainShell(context: Record<string, unknown> | undefined): string | undefined {
  const grains = context?.grains as Record<string, unknown> | undefined;
  return typeof grains?.shell === 'string' && grains.shell !== '' ? grains.shell : undefined;
}

/** The runner with `shell` filled in wherever a caller left it out. */
function withDefaultShell(cmd: CommandRunner, shell: string | undefined): CommandRunner {
  if (shell === undefined) return cmd;
  return { run: (command, options = {}) => cmd.run(command, options.shell === undefined ? { ...options, shell } : options) };
}

class Runner {
  readonly running: RunningDict = {};
  /** Tags recorded failed (the run's exit code reads these, not the whole dict). */
  readonly failed: string[] = [];
  private readonly index: ChunkIndex;
  private readonly tags = new Map<LowChunk, string>();
  /** Dry-run (test mode) results of prereq targets, by tag. */
  private readonly pre = new Map<string, StateResult>();
  private readonly active = new Set<string>();
  private readonly preActive = new Set<string>();
  private readonly inflight = new Map<string, Promise<void>>();
  private readonly env: CallEnv;
  private runNum = 0;
  stopped: 'failhard' | 'aborted' | undefined;

  private readonly chunks: LowChunk[];
  private readonly o: RunOptions;
  constructor(chunks: LowChunk[], o: RunOptions) {
    this.chunks = chunks;
    this.o = o;
    this.index = new ChunkIndex(chunks);
    const cmd = withDefaultShell(o.cmd, o.shell ?? grainShell(o.templateContext));
    this.env = {
      registry: o.registry,
      availability: new Map<StateModule, Promise<Availability>>(),
      available: new Map<StateModule, Availability>(),
      cmd,
      ...(o.exec ? { exec: o.exec } : {}),
      sleep: o.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
      context: (low, test): StateContext => {
        const ctx: StateContext = { low, running: this.running, lowstate: this.chunks, test, cmd, files: o.files };
        if (o.templateContext) ctx.templateContext = o.templateContext;
        if (o.exec) ctx.exec = o.exec;
        return ctx;
      },
    };
  }

  private tagOf(c: LowChunk): string {
    let t = this.tags.get(c);
    if (t === undefined) {
      t = chunkTag(c);
      this.tags.set(c, t);
    }
    return t;
  }

  /**
   * The chunk's requisites, looked up once per chunk (and dry run or not) where they may be asked
   * again: chunks and the index do not change during a run. A chunk whose requisites have their
   * results (most) is decided at once, and its lookup is not kept: it dies young.
   */
  private readonly lookups = [new Map<LowChunk, RequisiteLookup>(), new Map<LowChunk, RequisiteLookup>()] as const;
  private requisitesOf(chunk: LowChunk, dryRun: boolean, keep = true): RequisiteLookup {
    const memo = this.lookups[dryRun ? 1 : 0];
    let found = memo.get(chunk);
    if (!found) {
      found = lookupRequisites(this.index, chunk, dryRun);
      if (keep) memo.set(chunk, found);
    }
    return found;
  }

  private get test(): boolean {
    return this.o.test === true;
  }

  private checkAbort(): boolean {
    if (!this.stopped && this.o.signal?.aborted) this.stopped = 'aborted';
    return this.stopped !== undefined;
  }

  async run(): Promise<void> {
    let turn = performance.now();
    let since = 0;
    const chunks = this.chunks;
    // indexed loops on the paths every state takes: no iterator result per step before the optimiser has the code
    for (let i = 0; i < chunks.length; i++) {
      const chunk = chunks[i]!;
      if (this.checkAbort()) break;
      const p = this.ensure(chunk);
      if (p) await p;
      // States that return without a promise run back to back: the loop gets a turn now and
      // then (the minion's agent talks to its master on it, an abort arrives on it).
      if (++since >= YIELD_STATES || performance.now() - turn >= YIELD_MS) {
        await nextTurn();
        turn = performance.now();
        since = 0;
      }
    }
    await Promise.all([...this.inflight.values()]);
    if (!this.checkAbort()) await this.listeners();
    await Promise.all([...this.inflight.values()]);
  }

  /** Makes sure a chunk has its real result (unless the run stopped). */
  private ensure(chunk: LowChunk): Maybe<void> {
    const tag = this.tagOf(chunk);
    if (tag in this.running) return;
    const p = this.inflight.get(tag);
    if (p) return p;
    if (this.checkAbort()) return;
    return this.evaluate(chunk, false, 0);
  }

  /**
   * Runs a chunk's not-yet-run requisites deepest first, iteratively, in exactly the order the
   * recursive evaluation would: a requisite chain tens of thousands of states long must not
   * exhaust the stack. `evaluateWaiting` calls it at the top of a recursion (a chain ahead of the
   * low state's order; with `inflightStops`, a tree that reaches a parallel state still running is
   * left to the recursion, which waits for it before the requisites after it) and once its
   * recursion is WARM_DEPTH deep. Trees the
   * recursion would treat differently are left to it: those with prereq (they fork into dry
   * runs, and they are shallow in practice) and those that loop back (a recursive requisite).
   */
  private async warm(root: LowChunk, depth: number, inflightStops = false): Promise<void> {
    const kidsOf = (c: LowChunk): LowChunk[] | null => {
      const { reqs, lost } = this.requisitesOf(c, false);
      if (lost.size > 0) return [];
      if (reqs.some((r) => r.kind === 'prereq')) return null;
      return reqs.filter((r) => r.kind !== 'listen').flatMap((r) => r.chunks);
    };
    const rootKids = kidsOf(root);
    if (!rootKids || rootKids.length === 0) return;
    const order: LowChunk[] = [];
    const done = new Set<LowChunk>();
    const onStack = new Set<LowChunk>([root]);
    const stack: Array<{ c: LowChunk; kids: LowChunk[]; i: number }> = [{ c: root, kids: rootKids, i: 0 }];
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      if (top.i < top.kids.length) {
        const k = top.kids[top.i++]!;
        const ktag = this.tagOf(k);
        if (done.has(k) || ktag in this.running) continue;
        if (this.inflight.has(ktag)) {
          // a parallel state still running is waited for before the requisites after it
          if (inflightStops) return;
          continue;
        }
        if (onStack.has(k) || this.active.has(ktag)) return;
        const kk = kidsOf(k);
        if (kk === null) return;
        onStack.add(k);
        stack.push({ c: k, kids: kk, i: 0 });
      } else {
        stack.pop();
        onStack.delete(top.c);
        done.add(top.c);
        if (top.c !== root) order.push(top.c);
      }
    }
    for (const c of order) {
      if (this.checkAbort()) return;
      const ctag = this.tagOf(c);
      if (ctag in this.running) continue;
      const p = this.inflight.get(ctag) ?? this.evaluate(c, false, depth + 1);
      if (p) await p;
    }
  }

  /** Records a result: the running dict (with its number) for a real run, the prereq map for a dry run. */
  private record(chunk: LowChunk, dryRun: boolean, ret: StateReturn, runNum: number | undefined, timing?: { startTime: string; duration: number }): void {
    const tag = this.tagOf(chunk);
    const name = typeof ret.name === 'string' ? ret.name : chunk.name;
    const num = runNum ?? (dryRun ? -1 : this.runNum++);
    // one literal per shape: the keys in Salt's order, none added one by one
    const base: Record<string, unknown> = timing
      ? {
          name,
          changes: ret.changes ?? {},
          result: ret.result,
          comment: ret.comment,
          __sls__: chunk.__sls__,
          __run_num__: num,
          __id__: chunk.__id__,
          start_time: timing.startTime,
          duration: timing.duration,
        }
      : { name, changes: ret.changes ?? {}, result: ret.result, comment: ret.comment, __sls__: chunk.__sls__, __run_num__: num, __id__: chunk.__id__ };
    for (const k in ret) if (!SALT_KEYS.has(k) && Object.hasOwn(ret, k)) base[k] = ret[k];
    const res = base as StateResult;
    if (dryRun) {
      this.pre.set(tag, res);
      return;
    }
    this.running[tag] = res;
    if (res.result === false) this.failed.push(tag);
    if (!this.test && res.result === false && (chunk.failhard === true || this.o.failhard === true)) {
      this.stopped ??= 'failhard';
    }
    this.o.onResult?.(tag, res);
  }

  /** A requisite outcome: no function ran, so no start_time or duration. */
  private outcome(chunk: LowChunk, dryRun: boolean, result: boolean, comment: string, extra: Record<string, unknown> = {}): void {
    this.record(chunk, dryRun, { name: chunk.name, changes: {}, result, comment, ...extra }, undefined);
  }

  /**
   * A state its requisites decided not to run (prereq, onfail, onchanges): a success, timed
   * like a state that ran (Salt gives these a start_time and a duration of about nothing).
   */
  private notRun(chunk: LowChunk, dryRun: boolean, comment: string, extra: Record<string, unknown> = {}): void {
    const clock = startClock(this.o.now);
    const ret = { name: chunk.name, changes: {}, result: true, comment, ...extra };
    this.record(chunk, dryRun, ret, undefined, { startTime: clock.startTime, duration: elapsed(clock) });
  }

  /**
   * A failure that does not depend on a prediction (a requisite that names nothing, or one that
   * really failed): even in a prereq's dry run it is the chunk's real result, recorded once in
   * the running dict, and the dry run reads it from there.
   */
  private final(chunk: LowChunk, dryRun: boolean, comment: string): void {
    this.outcome(chunk, false, false, comment);
    if (dryRun) this.pre.set(this.tagOf(chunk), this.running[this.tagOf(chunk)]!);
  }

  /**
   * Evaluates a chunk. When every requisite it names already has its result (a file's states in
   * order, a chain run from its start) nothing is waited for, so nothing is awaited: the chunk is
   * decided, and run when its function returns without a promise, synchronously.
   */
  private evaluate(chunk: LowChunk, dryRun: boolean, depth: number): Maybe<void> {
    const found = this.requisitesOf(chunk, dryRun, false);
    const { reqs, lost } = found;
    if (lost.size > 0 || !this.settled(reqs)) {
      this.lookups[dryRun ? 1 : 0].set(chunk, found);
      return this.evaluateWaiting(chunk, dryRun, depth);
    }
    const tag = this.tagOf(chunk);
    const done = this.decide(chunk, dryRun, tag, reqs);
    if (!isThenable(done)) return;
    // Active while its function is awaited: a state decided without a promise is never seen
    // active by anything (nothing else runs meanwhile), so it is not marked.
    const active = dryRun ? this.preActive : this.active;
    active.add(tag);
    return done.finally(() => active.delete(tag));
  }

  /** Whether each requisite target has the result `evaluateWaiting` would find without waiting for anything. */
  private settled(reqs: ResolvedRequisite[]): boolean {
    for (let r = 0; r < reqs.length; r++) {
      const req = reqs[r]!;
      if (req.kind === 'listen') continue;
      const pre = req.kind === 'prereq';
      for (let i = 0; i < req.chunks.length; i++) {
        const ctag = this.tagOf(req.chunks[i]!);
        if (!(ctag in this.running) && !(pre && this.pre.has(ctag))) return false;
      }
    }
    return true;
  }

  private async evaluateWaiting(chunk: LowChunk, dryRun: boolean, depth: number): Promise<void> {
    const tag = this.tagOf(chunk);
    const active = dryRun ? this.preActive : this.active;
    active.add(tag);
    try {
      const { reqs, lost } = this.requisitesOf(chunk, dryRun);
      if (lost.size > 0) return this.final(chunk, dryRun, notFoundComment(lost));
      // A chain that runs ahead of the low state's order (a state requiring one listed after
      // it) is run from its far end, one state after the other, not by a promise per link.
      if (!dryRun && depth === 0) {
        await this.warm(chunk, depth, true);
        if (this.stopped) return;
      }
      for (const req of reqs) {
        if (req.kind === 'listen') continue;
        for (const c of req.chunks) {
          const ctag = this.tagOf(c);
          if (req.kind === 'prereq') {
            if (this.pre.has(ctag) || ctag in this.running) continue;
            if (this.preActive.has(ctag)) return this.outcome(chunk, dryRun, false, 'Recursive requisite found');
            await this.evaluate(c, true, depth + 1);
          } else {
            if (ctag in this.running) continue;
            const p = this.inflight.get(ctag);
            if (p) {
              await p;
              continue;
            }
            if (dryRun && (this.active.has(ctag) || this.preActive.has(ctag) || this.pre.has(ctag) || this.waitsOnActive(c))) {
              // As Salt, a prediction's requisites run for real first; but one still being
              // evaluated further up (it waits on this prediction), or one that would need such a
              // state, is predicted (or left out) instead of being called a loop.
              if (!this.active.has(ctag) && !this.preActive.has(ctag) && !this.pre.has(ctag)) await this.evaluate(c, true, depth + 1);
              if (this.stopped) return;
              continue;
            }
            if (this.active.has(ctag)) return this.outcome(chunk, dryRun, false, 'Recursive requisite found');
            if (this.checkAbort()) return;
            if (depth > 0 && depth % WARM_DEPTH === 0) {
              await this.warm(c, depth);
              if (this.stopped) return;
            }
            await this.evaluate(c, false, depth + 1);
          }
          if (this.stopped) return;
        }
      }
      await this.decide(chunk, dryRun, tag, reqs);
    } finally {
      active.delete(tag);
    }
  }

  /** What a chunk whose requisites have their results does: a requisite outcome, or its run. */
  private decide(chunk: LowChunk, dryRun: boolean, tag: string, reqs: ResolvedRequisite[]): Maybe<void> {
    if (!dryRun && tag in this.running) return; // ran as a requisite of its own requisite chain
    const status = requisiteStatus(reqs, dryRun ? this.dryResultOf : this.realResultOf);
    switch (status.status) {
      case 'fail': {
        // A prereq target whose own dry run failed made its prereq fail: as Salt, it reports
        // that failure of its own, not the prereq it took down with it.
        const own = dryRun ? undefined : this.pre.get(tag);
        if (own?.result === false && onlyPrerequired(reqs, status.failed)) {
          const timing = own.start_time === undefined ? undefined : { startTime: own.start_time, duration: own.duration ?? 0 };
          return this.record(chunk, false, own, undefined, timing);
        }
        // A prereq target whose real requisites failed will not run at all: that is its
        // result, not a prediction, so it is recorded now (and the prereq sees it).
        if (status.failed.every((c) => this.running[this.tagOf(c)]?.result === false)) return this.final(chunk, dryRun, failedComment(status.failed));
        return this.outcome(chunk, dryRun, false, failedComment(status.failed));
      }
      case 'pre':
        return this.notRun(chunk, dryRun, 'No changes detected');
      case 'onfail':
        return this.notRun(chunk, dryRun, 'State was not run because onfail req did not change', { __state_ran__: false });
      case 'onchanges':
        return this.notRun(chunk, dryRun, 'State was not run because none of the onchanges reqs changed', { __state_ran__: false });
      default:
        return this.launch(chunk, dryRun, status.status === 'change' ? reqs : undefined);
    }
  }

  /** Whether running `root` for real would need a state now being evaluated (through any requisites). */
  private waitsOnActive(root: LowChunk): boolean {
    const seen = new Set<LowChunk>([root]);
    const stack = [root];
    for (let c = stack.pop(); c; c = stack.pop()) {
      for (const r of this.requisitesOf(c, false).reqs) {
        if (r.kind === 'listen') continue;
        for (const k of r.chunks) {
          const tag = this.tagOf(k);
          if (this.active.has(tag)) return true;
          if (seen.has(k) || tag in this.running) continue;
          seen.add(k);
          stack.push(k);
        }
      }
    }
    return false;
  }

  /** resultOf for a real run and for a prediction, made once (every state's requisites are judged). */
  private readonly realResultOf = (kind: EvalKind, c: LowChunk) => this.resultOf(kind, c, false);
  private readonly dryResultOf = (kind: EvalKind, c: LowChunk) => this.resultOf(kind, c, true);

  /** A requisite's result: prereq targets (and, in a prediction, anything not run yet) by their dry run. */
  private resultOf(kind: EvalKind, c: LowChunk, dryRun: boolean): StateResult | undefined {
    const tag = this.tagOf(c);
    if (kind === 'prereq') return this.pre.get(tag) ?? this.running[tag];
    return this.running[tag] ?? (dryRun ? this.pre.get(tag) : undefined);
  }

  /** Runs the state (concurrently when `parallel: True`, except in a dry run). */
  private launch(chunk: LowChunk, dryRun: boolean, watched: ResolvedRequisite[] | undefined): Maybe<void> {
    const runNum = dryRun ? -1 : this.runNum++;
    if (dryRun || chunk.parallel !== true) return this.execute(chunk, dryRun, runNum, watched);
    let job: Maybe<void>;
    try {
      job = this.execute(chunk, dryRun, runNum, watched);
    } catch (err) {
      job = Promise.reject(err as Error);
    }
    if (!isThenable(job)) return; // done already: nothing to wait for
    const tag = this.tagOf(chunk);
    const p = job.finally(() => this.inflight.delete(tag));
    this.inflight.set(tag, p);
  }

  private execute(chunk: LowChunk, dryRun: boolean, runNum: number, watched: ResolvedRequisite[] | undefined): Maybe<void> {
    const test = this.test || dryRun;
    const clock = startClock(this.o.now);
    let called = chunk;
    // most chunks bind nothing: no closure or wrapper for them
    if (Array.isArray(chunk.arg_bind) && chunk.arg_bind.length > 0) {
      const bound = bindArguments(chunk, (state, id, resource) => this.boundResult(state, id, resource), test);
      if ('error' in bound) {
        this.record(chunk, dryRun, { name: chunk.name, result: false, changes: {}, comment: bound.error }, runNum, {
          startTime: clock.startTime,
          duration: elapsed(clock),
        });
        return;
      }
      called = bound.chunk;
    }
    const ret = callChunk(this.env, called, test, false);
    if (isThenable(ret)) return ret.then((r) => this.executed(chunk, called, dryRun, runNum, watched, r, clock));
    return this.executed(chunk, called, dryRun, runNum, watched, ret, clock);
  }

  /** Records what the function returned, after the module's mod_watch when a watch fired. */
  private executed(
    chunk: LowChunk,
    called: LowChunk,
    dryRun: boolean,
    runNum: number,
    watched: ResolvedRequisite[] | undefined,
    ret: StateReturn,
    clock: Clock,
  ): Maybe<void> {
    const timing = { startTime: clock.startTime, duration: elapsed(clock) };
    // A fired watch: when the state itself changed nothing, the module's mod_watch reacts
    // (restart a service, ...). Salt numbers that second call separately, leaving a gap.
    if (watched && !dryRun && Object.keys(ret.changes).length === 0 && ret.skip_watch !== true && this.o.registry.module(chunk.state)?.modWatch) {
      return this.watchFired(chunk, called, watched);
    }
    this.done(chunk, dryRun, ret, dryRun ? -1 : runNum, timing);
  }

  private async watchFired(chunk: LowChunk, called: LowChunk, watched: ResolvedRequisite[]): Promise<void> {
    const reqs: Record<string, LowChunk[]> = {};
    for (const r of watched) (reqs[r.kind] ??= []).push(...r.chunks);
    const low: LowChunk = { ...called, sfun: chunk.fun, fun: 'mod_watch', __reqs__: reqs };
    const c2 = startClock(this.o.now);
    const num = this.runNum++;
    const ret = await callChunk(this.env, low, this.test, true);
    this.done(chunk, false, ret, num, { startTime: c2.startTime, duration: elapsed(c2) });
  }

  private done(chunk: LowChunk, dryRun: boolean, ret: StateReturn, num: number, timing: { startTime: string; duration: number }): void {
    // Salt marks what ran in parallel (a prereq's dry run never does).
    if (chunk.parallel === true && !dryRun) ret = { ...ret, __parallel__: true };
    this.record(chunk, dryRun, ret, num, timing);
  }

  private boundResult(state: string, id: string, resource: string | undefined): StateResult | undefined {
    const found = this.index.resolveArgBind(state, id, resource)[0];
    if (!found) return undefined;
    const tag = this.tagOf(found);
    return this.running[tag] ?? this.pre.get(tag);
  }

  /**
   * `listen`: after everything else, each listening state whose listened states changed gets
   * its module's mod_watch, recorded as `<state>_|-listener_<id>_|-<name>_|-mod_watch`.
   */
  private async listeners(): Promise<void> {
    const errors = new Map<string, StateResult>();
    for (let i = 0; i < this.chunks.length; i++) {
      const chunk = this.chunks[i]!;
      if (chunk.listen === undefined || chunk.listen === null) continue;
      const { reqs, lost, listenLost } = this.requisitesOf(chunk, false);
      for (const t of listenLost) {
        const error = { name: `listen_${t.kind}:${t.value}`, changes: {}, result: false, comment: `Referenced state ${t.kind}: ${t.value} does not exist` };
        errors.set(
          chunkTag({ state: 'Listen_Error', __id__: `listen_${t.value}`, name: `listen_${t.kind}`, fun: 'Listen_Error' } as LowChunk),
          error as StateResult,
        );
      }
      if (!(this.tagOf(chunk) in this.running)) continue;
      if (lost.size > 0) continue;
      const fired = reqs.some((r) => r.kind === 'listen' && r.chunks.some((c) => Object.keys(this.running[this.tagOf(c)]?.changes ?? {}).length > 0));
      if (!fired) continue;
      const low: LowChunk = { ...chunk, __id__: `listener_${chunk.__id__}`, sfun: chunk.fun, fun: 'mod_watch' };
      for (const k of REQ_FREE_KEYS) delete low[k];
      low.__reqs__ = { listen: reqs.filter((r) => r.kind === 'listen').flatMap((r) => r.chunks) };
      const tag = chunkTag(low);
      if (tag in this.running) continue;
      const runNum = this.runNum++;
      const clock = startClock(this.o.now);
      const ret = await callChunk(this.env, low, this.test, true);
      this.tags.set(low, tag);
      this.record(low, false, ret, runNum, { startTime: clock.startTime, duration: elapsed(clock) });
      if (this.checkAbort()) return;
    }
    // Salt's shape for these: no __sls__ or __id__, numbered after every listener.
    for (const [tag, error] of errors) {
      if (tag in this.running) continue;
      error.__run_num__ = this.runNum++;
      this.running[tag] = error;
      this.failed.push(tag);
      this.o.onResult?.(tag, error);
    }
  }
}

function checkLowstate(lowstate: unknown): asserts lowstate is LowChunk[] {
  if (!Array.isArray(lowstate)) {
    throw runtimeErrors.make('BRINE_ERR_RUNTIME_BAD_LOWSTATE', { detail: `got ${typeof lowstate}` });
  }
  lowstate.forEach((c, i) => {
    if (!c || typeof c !== 'object' || typeof c.state !== 'string' || typeof c.fun !== 'string' || typeof c.__id__ !== 'string') {
      throw runtimeErrors.make('BRINE_ERR_RUNTIME_BAD_LOWSTATE', { detail: `item ${i} is not a low chunk with state, fun and __id__` });
    }
  });
}

/**
 * The runtime stage: evaluates the ordered low state and returns the running dict. Each chunk's
 * requisites are evaluated first (recursively), each chunk runs once, `__run_num__` numbers the
 * executions. Throws only for a low state that is not a list of chunks (a coded error); every
 * state problem is that state's result.
 */
export async function runLowState(lowstate: LowChunk[], options: RunOptions): Promise<RunOutcome> {
  checkLowstate(lowstate);
  const chunks = foldListenIn(
    // a compiled chunk already has all three (and the runtime never writes to a chunk): no copy
    lowstate.map((c) =>
      typeof c.name === 'string' && typeof c.__sls__ === 'string' && typeof c.__env__ === 'string'
        ? c
        : {
            ...c,
            name: typeof c.name === 'string' ? c.name : c.name === undefined ? c.__id__ : String(c.name),
            __sls__: c.__sls__ ?? 'state.low',
            __env__: c.__env__ ?? 'base',
          },
    ),
  );
  const runner = new Runner(chunks, options);
  await runner.run();
  let failed = false;
  for (const tag of runner.failed) {
    if (runner.running[tag]!.result === false && !onfailHandled(tag, chunks, runner.running)) {
      failed = true;
      break;
    }
  }
  const outcome: RunOutcome = { running: runner.running, retcode: failed ? 2 : 0 };
  if (runner.stopped) outcome.stopped = runner.stopped;
  return outcome;
}

/** Whether every failed requisite is one the chunk has only as a prereq target (`prerequired`). */
function onlyPrerequired(reqs: ResolvedRequisite[], failed: LowChunk[]): boolean {
  const pre = new Set<LowChunk>();
  const other = new Set<LowChunk>();
  for (const r of reqs) for (const c of r.chunks) (r.kind === 'prerequired' ? pre : other).add(c);
  return failed.every((c) => pre.has(c) && !other.has(c));
}
