import { Worker } from 'node:worker_threads';
import type { HostAnswer } from '@brine/compiler';
import { packKeyOrder, unpackKeyOrder, type Grains, type Logger } from '@brine/core';
import type { MasterConfig } from './config.js';
import type { CompileStep, StepResult } from './compile-steps.js';
import { masterErrors } from './errors.js';
import type { PillarOptions, WorkerTask } from './compile-worker.js';
import type { PillarResult } from './pillar.js';

/** Why a step did not come back: the worker's tree differs (run it in process) or the worker died. */
export class StaleSnapshot extends Error {}

interface Pending {
  resolve: (r: never) => void;
  reject: (e: Error) => void;
  file?: string;
}

interface Slot {
  worker: Worker;
  busy?: number;
}

/**
 * A pool of compile workers (worker threads) sized to the cores: a fleet's compiles run in
 * parallel and a template that runs away (past render_timeout) or grows past the memory limit
 * takes down only its worker, which is replaced, and fails only its minion's compile.
 */
export class CompilePool {
  private readonly slots: Slot[] = [];
  private readonly queue: Array<{ task: WorkerTask; pending: Pending }> = [];
  private readonly pending = new Map<number, Pending>();
  private next = 1;
  private closed = false;

  private readonly config: MasterConfig;
  private readonly log: Logger;
  constructor(config: MasterConfig, log: Logger, size: number) {
    this.config = config;
    this.log = log;
    for (let i = 0; i < size; i++) this.slots.push({ worker: this.spawn() });
  }

  get size(): number {
    return this.slots.length;
  }

  private spawn(): Worker {
    const w = new Worker(new URL('./compile-worker.js', import.meta.url), {
      workerData: {
        file_roots: this.config.file_roots,
        pillar_roots: this.config.pillar_roots,
        env_order: this.config.env_order,
        render_timeout: this.config.render_timeout,
      },
      resourceLimits: { maxOldGenerationSizeMb: this.config.compile_worker_memory_mb },
    });
    w.unref();
    w.on('message', (m: { task: number; rendering?: string; stale?: boolean; out?: unknown; error?: string }) => {
      const p = this.pending.get(m.task);
      if (!p) return;
      if (m.rendering !== undefined) {
        p.file = m.rendering;
        return;
      }
      this.pending.delete(m.task);
      this.release(w);
      if (m.stale) p.reject(new StaleSnapshot('the compile worker sees another tree'));
      else if (m.error !== undefined) p.reject(new Error(m.error));
      else p.resolve(m.out as never);
    });
    w.on('error', (err) => this.lost(w, err));
    w.on('exit', (code) => {
      if (!this.closed) this.lost(w, new Error(`compile worker exited (${code})`));
    });
    return w;
  }

  /** A worker died (out of memory, crashed): its step fails with the file it was rendering; a new worker takes its place. */
  private lost(w: Worker, err: Error): void {
    const slot = this.slots.find((s) => s.worker === w);
    if (!slot) return;
    const task = slot.busy;
    slot.busy = undefined;
    if (!this.closed) {
      slot.worker = this.spawn();
      this.log.error({ event: 'compile_worker_lost', err: err.message }, 'a compile worker died; it is replaced');
    }
    if (task !== undefined) {
      const p = this.pending.get(task);
      this.pending.delete(task);
      const oom = /out of memory|ERR_WORKER_OUT_OF_MEMORY/i.test(`${(err as { code?: string }).code ?? ''} ${err.message}`);
      p?.reject(
        masterErrors.make('BRINE_ERR_MASTER_COMPILE_WORKER', {
          file: p.file ?? '(before the first template)',
          detail: oom ? `the render went past compile_worker_memory_mb (${this.config.compile_worker_memory_mb} MiB)` : err.message,
        }),
      );
    }
    this.pump();
  }

  private release(w: Worker): void {
    const slot = this.slots.find((s) => s.worker === w);
    if (slot) slot.busy = undefined;
    this.pump();
  }

  private pump(): void {
    for (const slot of this.slots) {
      if (slot.busy !== undefined) continue;
      const item = this.queue.shift();
      if (!item) return;
      slot.busy = item.task.task;
      this.pending.set(item.task.task, item.pending);
      slot.worker.postMessage(item.task);
    }
  }

  /** Runs one compile step on a worker. */
  run(step: CompileStep, snapHash: string, jid: string | undefined, answers: Map<string, HostAnswer>): Promise<StepResult> {
    return this.submit<StepResult>({
      step: { ...step, pillar: packKeyOrder(step.pillar) as typeof step.pillar },
      snapHash,
      ...(jid !== undefined ? { jid } : {}),
      answers,
    });
  }

  /** Renders a minion's classic pillar on a worker. */
  async pillar(id: string, grains: Grains, opts: PillarOptions, snapHash: string, jid: string | undefined): Promise<PillarResult> {
    const res = await this.submit<PillarResult>({ pillar: { id, grains, opts }, snapHash, ...(jid !== undefined ? { jid } : {}), answers: new Map() });
    return { ...res, pillar: unpackKeyOrder(res.pillar) as PillarResult['pillar'] };
  }

  private submit<T>(t: Omit<WorkerTask, 'task'>): Promise<T> {
    if (this.closed) return Promise.reject(new Error('the compile pool is closed'));
    return new Promise<T>((resolve, reject) => {
      const task: WorkerTask = { task: this.next++, ...t };
      this.queue.push({ task, pending: { resolve: resolve as (r: never) => void, reject } });
      this.pump();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const p of this.pending.values()) p.reject(new Error('the compile pool is closed'));
    this.pending.clear();
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
  }
}
