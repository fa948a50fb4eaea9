import { deserialize, serialize } from 'node:v8';
import { renderSls, setRenderTimeout, type HostAnswer, type PillarMergeStrategy, type RenderInput } from '@brine/compiler';
import { packKeyOrder, unpackKeyOrder, type Grains } from '@brine/core';
import { runCompileStep, type CompileStep } from './compile-steps.js';
import { compilePillar } from './pillar.js';
import { treeSchema } from './state-schema.js';
import { ShippedTree, type TreeShipment } from './tree-shipment.js';
import { renderReactor, type ReactorRenderTask } from './reactor-render.js';

/**
 * A compile worker process: runs compile steps for the master, off its event loop, under Node's
 * permission model (compile-worker-launch.ts). It reads no file root: the master ships the job's
 * snapshot with the task. Payloads travel as v8-serialised buffers, each way decoded inside a
 * try, so data that cannot cross (nested too deep) fails only its own compile.
 */
export interface WorkerTask {
  /** A compile step, or a minion's classic pillar. */
  step?: CompileStep;
  pillar?: { id: string; grains: Grains; opts: PillarOptions };
  /** A reactor file to render for an event (its text read by the master). */
  reactor?: ReactorRenderTask;
  snapHash: string;
  answers: Map<string, HostAnswer>;
  /** The snapshot the task compiles against, when the worker does not hold it yet. */
  files?: TreeShipment;
  pillars?: TreeShipment;
}

export type PillarOptions = {
  mergeLists?: boolean;
  nodegroups?: Record<string, string | string[]>;
  safeMatchersOnly?: boolean;
  /** pillar_source_merging_strategy, and the ext_pillar's values the templates see with ext_pillar_first. */
  strategy?: PillarMergeStrategy;
  seen?: Record<string, unknown>;
};

/** The worker's first message: what its permissions allow (the pool logs a worker that is not confined). */
export interface Confinement {
  permission: boolean;
  child: boolean;
  worker: boolean;
  write: boolean;
  /** For each path the master named as off limits: whether it is readable. */
  readable: Record<string, boolean>;
}

/** Master to worker: `{task, data}` (data: a serialised WorkerTask). */
export interface TaskMessage {
  task: number;
  data: Uint8Array;
}

/** Worker to master: the file it starts rendering, the serialised outcome, or why there is none. */
export type WorkerMessage =
  { ready: Confinement } | { task: number; rendering: string } | { task: number; data: Uint8Array } | { task: number; transfer: string };

function confinement(denied: string[]): Confinement {
  const p = process.permission;
  return {
    permission: p !== undefined,
    child: p ? p.has('child') : true,
    worker: p ? p.has('worker') : true,
    write: p ? p.has('fs.write') : true,
    readable: Object.fromEntries(denied.map((d) => [d, p ? p.has('fs.read', d) : true])),
  };
}

function send(m: WorkerMessage): void {
  process.send!(m);
}

const init = JSON.parse(process.argv[2] ?? '{}') as { render_timeout?: number; denied?: string[] };
if (init.render_timeout !== undefined) setRenderTimeout(init.render_timeout);
const files = new ShippedTree();
const pillars = new ShippedTree();
let schema: { hash: string; schema: ReturnType<typeof treeSchema> } | undefined;

function run(task: number, t: WorkerTask): unknown {
  if (t.files) files.accept(t.files);
  if (t.pillars) pillars.accept(t.pillars);
  // say which file is rendering: the pool's watchdog and a worker that dies report it by file
  const render = (input: RenderInput) => {
    send({ task, rendering: `${input.env}:${input.path}` });
    return renderSls(input);
  };
  if (t.reactor) {
    const res = renderReactor({ ...t.reactor, data: unpackKeyOrder(t.reactor.data) }, render);
    return res.high ? { ...res, high: packKeyOrder(res.high) } : res;
  }
  if (t.pillar) {
    const { seen, ...rest } = t.pillar.opts;
    const opts = { ...rest, ...(seen ? { seen: unpackKeyOrder(seen) as Record<string, unknown> } : {}), render, context: { hostAnswers: t.answers } };
    const res = compilePillar(pillars.get(t.snapHash), { id: t.pillar.id, grains: t.pillar.grains }, opts);
    return { ...res, pillar: packKeyOrder(res.pillar) };
  }
  const snap = files.get(t.snapHash);
  if (schema?.hash !== snap.hash) schema = { hash: snap.hash, schema: treeSchema(snap) };
  const step = t.step!;
  return runCompileStep({ ...step, pillar: unpackKeyOrder(step.pillar) as typeof step.pillar }, snap, schema.schema, t.answers, render);
}

process.on('message', (m: TaskMessage) => {
  let t: WorkerTask;
  try {
    t = deserialize(m.data) as WorkerTask;
  } catch (e) {
    send({ task: m.task, transfer: `the task cannot be read (${(e as Error).message})` });
    return;
  }
  let outcome: { out: unknown } | { error: string };
  try {
    outcome = { out: run(m.task, t) };
  } catch (e) {
    outcome = { error: (e as Error).stack ?? String(e) };
  }
  let data: Uint8Array;
  try {
    data = serialize(outcome);
  } catch (e) {
    send({ task: m.task, transfer: `the result cannot be sent (${(e as Error).message})` });
    return;
  }
  send({ task: m.task, data });
});
// the master is gone: nothing more to do
process.on('disconnect', () => process.exit(0));
send({ ready: confinement(init.denied ?? []) });
