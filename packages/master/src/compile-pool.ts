import { fork, type ChildProcess } from 'node:child_process';
import { deserialize, serialize } from 'node:v8';
import type { HostAnswer } from '@brine/compiler';
import { packKeyOrder, unpackKeyOrder, type Grains, type Logger } from '@brine/core';
import type { MasterConfig } from './config.js';
import type { CompileStep, StepResult } from './compile-steps.js';
import { workerLaunch, type WorkerLaunch } from './compile-worker-launch.js';
import type { Confinement, PillarOptions, WorkerMessage, WorkerTask } from './compile-worker.js';
import { masterErrors } from './errors.js';
import type { TreeSnapshot } from './file-roots.js';
import type { PillarResult } from './pillar.js';
import { shipTree, type ShippedState } from './tree-shipment.js';
import type { ReactorRenderResult, ReactorRenderTask } from './reactor-render.js';

/** A compile worker that died or data that could not cross to it: this compile fails, the next ones go on. */
export const POOL_FAILURES = new Set(['BRINE_ERR_MASTER_COMPILE_WORKER', 'BRINE_ERR_MASTER_COMPILE_TRANSFER']);

/** Seconds past render_timeout before the watchdog stops a worker that renders one file. */
export const WATCHDOG_GRACE_SECONDS = 5;

interface Settle {
  resolve: (r: never) => void;
  reject: (e: Error) => void;
}

interface Queued extends Settle {
  task: Omit<WorkerTask, 'files' | 'pillars'>;
  snaps: { files?: TreeSnapshot; pillars?: TreeSnapshot };
  minion: string;
  what: string;
}

interface Running extends Queued {
  id: number;
  file?: string;
  timer?: NodeJS.Timeout;
}

interface Slot {
  child: ChildProcess;
  running?: Running;
  /** What this worker holds of each tree (tree-shipment.ts). */
  trees: { files: ShippedState; pillars: ShippedState };
  ready?: Confinement;
  started: Promise<Confinement>;
  stderr: string;
  gone?: boolean;
}

function emptyBooks(): Slot['trees'] {
  return { files: { known: new Set() }, pillars: { known: new Set() } };
}

/** Whether a worker's report says it runs with the restrictions it was started with. */
export function confined(c: Confinement): boolean {
  return c.permission && !c.child && !c.worker && !c.write && !Object.values(c.readable).some(Boolean);
}

/**
 * A pool of compile worker processes, sized to the cores: a fleet's compiles run in parallel off
 * the event loop. A worker runs one step at a time; a step that fails to cross to it or back
 * fails alone; a worker that dies (memory, crash) or renders one file for longer than
 * render_timeout plus a grace (what the render deadline cannot interrupt: a backtracking regular
 * expression, say) is killed and replaced, and only its compile fails, naming the file.
 */
export class CompilePool {
  private readonly slots: Slot[] = [];
  private readonly queue: Queued[] = [];
  private next = 1;
  private closed = false;
  private readonly launch: WorkerLaunch;

  private readonly config: MasterConfig;
  private readonly log: Logger;
  constructor(config: MasterConfig, log: Logger, size: number) {
    this.config = config;
    this.log = log;
    this.launch = workerLaunch(config);
    // Stryker disable next-line all: a mutant of this loop forks workers without end (it ran the machine out of memory)
    for (let i = 0; i < Math.max(1, size); i++) this.slots.push(this.spawn());
  }

  get size(): number {
    return this.slots.length;
  }

  /** What each worker reported of its permissions when it started (undefined until it has). */
  get confinement(): Array<Confinement | undefined> {
    return this.slots.map((s) => s.ready);
  }

  /** Resolves once every worker has started and reported its permissions. */
  started(): Promise<Confinement[]> {
    return Promise.all(this.slots.map((s) => s.started));
  }

  private spawn(): Slot {
    const init = JSON.stringify({ render_timeout: this.config.render_timeout, denied: this.launch.denied });
    const child = fork(this.launch.entry, [init], {
      execArgv: this.launch.execArgv,
      env: this.launch.env,
      serialization: 'advanced',
      stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
    });
    const started = new Promise<Confinement>((resolve, reject) => {
      child.on('message', (m: WorkerMessage) => 'ready' in m && resolve(m.ready));
      child.once('close', () => reject(new Error(`a compile worker exited before it started: ${slot.stderr.slice(-1024)}`)));
    });
    started.catch(() => undefined);
    const slot: Slot = { child, trees: emptyBooks(), started, stderr: '' };
    child.stderr!.on('data', (d: Buffer) => (slot.stderr = (slot.stderr + d.toString()).slice(-4096)));
    child.on('message', (m: WorkerMessage) => this.onMessage(slot, m));
    child.on('error', (err) => this.lost(slot, err.message));
    child.on('close', (code, signal) => this.lost(slot, `it exited (${signal ?? code})`));
    (child.stderr as unknown as { unref?: () => void }).unref?.();
    return slot;
  }

  /** A worker holds the process open only while it starts or runs a task (an idle pool never keeps it alive). */
  private hold(slot: Slot, on: boolean): void {
    // once closing, close() waits for every worker's 'close': a worker's late 'ready' must not
    // let go of it (the process then exited with close() still pending, exit code 13). The stderr
    // pipe is held too, as 'close' waits for it.
    if (!on && this.closed) return;
    const stderr = slot.child.stderr as unknown as { ref?: () => void; unref?: () => void } | null;
    if (on) {
      slot.child.ref();
      slot.child.channel?.ref();
      stderr?.ref?.();
    } else {
      slot.child.unref();
      slot.child.channel?.unref();
      stderr?.unref?.();
    }
  }

  private onMessage(slot: Slot, m: WorkerMessage): void {
    if ('ready' in m) {
      slot.ready = m.ready;
      if (!slot.running) this.hold(slot, false);
      if (!confined(m.ready))
        this.log.error({ event: 'compile_worker_unconfined', confinement: m.ready }, 'a compile worker runs with more rights than it was given');
      return;
    }
    const r = slot.running;
    if (!r || m.task !== r.id) return;
    if ('rendering' in m) {
      r.file = m.rendering;
      this.arm(slot);
      return;
    }
    this.finish(slot);
    if ('transfer' in m) {
      // the worker may not hold what its books say: the next task ships whole trees
      slot.trees = emptyBooks();
      r.reject(masterErrors.make('BRINE_ERR_MASTER_COMPILE_TRANSFER', { minion: r.minion, what: r.what, detail: m.transfer }));
      return;
    }
    let outcome: { out: unknown } | { error: string };
    try {
      outcome = deserialize(m.data) as typeof outcome;
    } catch (e) {
      slot.trees = emptyBooks();
      r.reject(
        masterErrors.make('BRINE_ERR_MASTER_COMPILE_TRANSFER', {
          minion: r.minion,
          what: r.what,
          detail: `the result cannot be read (${(e as Error).message})`,
        }),
      );
      return;
    }
    if ('error' in outcome) {
      slot.trees = emptyBooks();
      r.reject(new Error(outcome.error));
    } else r.resolve(outcome.out as never);
  }

  /** The watchdog: restarted whenever the worker starts rendering another file. */
  private arm(slot: Slot): void {
    const r = slot.running!;
    clearTimeout(r.timer);
    const limit = this.config.render_timeout + WATCHDOG_GRACE_SECONDS;
    r.timer = setTimeout(
      () =>
        this.lost(
          slot,
          `it rendered one file for more than ${limit} s (render_timeout ${this.config.render_timeout} s and ${WATCHDOG_GRACE_SECONDS} s grace): ` +
            'the template does something the render deadline cannot interrupt (a regular expression that backtracks, a huge string, deep recursion)',
        ),
      limit * 1000,
    );
    r.timer.unref();
  }

  private finish(slot: Slot): void {
    clearTimeout(slot.running?.timer);
    slot.running = undefined;
    if (slot.ready) this.hold(slot, false);
    queueMicrotask(() => this.pump());
  }

  /** A worker died or was stopped: its compile fails naming the file; a new worker takes its place. */
  private lost(slot: Slot, detail: string): void {
    if (slot.gone) return;
    slot.gone = true;
    if (slot.child.exitCode === null && slot.child.signalCode === null) slot.child.kill('SIGKILL');
    const r = slot.running;
    this.finish(slot);
    const oom = /heap out of memory|Reached heap limit/i.test(slot.stderr);
    if (!this.closed) {
      // a worker that never started (a broken install) is not restarted in a tight loop
      const respawn = () => {
        const i = this.slots.indexOf(slot);
        if (i >= 0 && !this.closed) this.slots[i] = this.spawn();
        this.pump();
      };
      if (slot.ready) respawn();
      else setTimeout(respawn, 1000).unref();
      this.log.error(
        { event: 'compile_worker_lost', detail, stderr: slot.stderr.slice(-1024) || undefined },
        'a compile worker died or was stopped; it is replaced',
      );
    }
    r?.reject(
      masterErrors.make('BRINE_ERR_MASTER_COMPILE_WORKER', {
        file: r.file ?? '(before the first template)',
        detail: oom ? `the render went past compile_worker_memory_mb (${this.config.compile_worker_memory_mb} MiB)` : detail,
      }),
    );
  }

  private pump(): void {
    for (const slot of this.slots) {
      while (!slot.running && !slot.gone && !this.closed) {
        const item = this.queue.shift();
        if (!item) return;
        this.dispatch(slot, item);
      }
    }
  }

  /** Sends one task to a free worker, with the snapshots it does not hold yet. */
  private dispatch(slot: Slot, item: Queued): void {
    const files = item.snaps.files ? shipTree(item.snaps.files, slot.trees.files) : undefined;
    const pillars = item.snaps.pillars ? shipTree(item.snaps.pillars, slot.trees.pillars) : undefined;
    let data: Buffer;
    try {
      data = serialize({ ...item.task, ...(files?.shipment ? { files: files.shipment } : {}), ...(pillars?.shipment ? { pillars: pillars.shipment } : {}) });
    } catch (e) {
      item.reject(
        masterErrors.make('BRINE_ERR_MASTER_COMPILE_TRANSFER', { minion: item.minion, what: item.what, detail: `it cannot be sent (${(e as Error).message})` }),
      );
      return;
    }
    if (files) slot.trees.files = files.after;
    if (pillars) slot.trees.pillars = pillars.after;
    const running: Running = { ...item, id: this.next++ };
    slot.running = running;
    this.hold(slot, true);
    this.arm(slot);
    try {
      slot.child.send({ task: running.id, data }, (err: Error | null) => {
        if (err) this.lost(slot, `the task could not be sent (${err.message})`);
      });
    } catch (e) {
      this.lost(slot, `the task could not be sent (${(e as Error).message})`);
    }
  }

  /** Runs one compile step on a worker, against `snap` (shipped to it when it does not hold it). */
  run(step: CompileStep, snap: TreeSnapshot, answers: Map<string, HostAnswer>): Promise<StepResult> {
    const task = { step: { ...step, pillar: packKeyOrder(step.pillar) as typeof step.pillar }, snapHash: snap.hash, answers };
    return this.submit<StepResult>(task, { files: snap }, step.id, `${step.op} step`);
  }

  /** Renders a minion's classic pillar on a worker (`answers`: the mine.get calls answered so far). */
  async pillar(id: string, grains: Grains, opts: PillarOptions, snap: TreeSnapshot, answers = new Map<string, HostAnswer>()): Promise<PillarResult> {
    const res = await this.submit<PillarResult>({ pillar: { id, grains, opts }, snapHash: snap.hash, answers }, { pillars: snap }, id, 'pillar');
    return { ...res, pillar: unpackKeyOrder(res.pillar) as PillarResult['pillar'] };
  }

  /** Renders a reactor file for an event on a worker (reactor templates are untrusted like any SLS). */
  async reactor(task: ReactorRenderTask): Promise<ReactorRenderResult> {
    const res = await this.submit<ReactorRenderResult>(
      { reactor: { ...task, data: packKeyOrder(task.data) }, snapHash: '', answers: new Map() },
      {},
      'reactor',
      `reactor ${task.file}`,
    );
    return res.high ? { ...res, high: unpackKeyOrder(res.high) as Record<string, unknown> } : res;
  }

  private submit<T>(task: Queued['task'], snaps: Queued['snaps'], minion: string, what: string): Promise<T> {
    if (this.closed) return Promise.reject(new Error('the compile pool is closed'));
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ task, snaps, minion, what, resolve: resolve as (r: never) => void, reject });
      this.pump();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    const err = new Error('the compile pool is closed');
    for (const q of this.queue.splice(0)) q.reject(err);
    await Promise.all(
      this.slots.map((s) => {
        clearTimeout(s.running?.timer);
        s.running?.reject(err);
        s.running = undefined;
        if (s.child.exitCode !== null || s.child.signalCode !== null) return Promise.resolve();
        return new Promise<void>((resolve) => {
          s.child.once('close', () => resolve());
          this.hold(s, true);
          s.child.kill('SIGKILL');
        });
      }),
    );
  }
}
