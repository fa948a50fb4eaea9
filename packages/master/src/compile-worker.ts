import { parentPort, workerData } from 'node:worker_threads';
import { renderSls, setRenderTimeout, type HostAnswer, type RenderInput } from '@brine/compiler';
import { packKeyOrder, unpackKeyOrder, type Grains } from '@brine/core';
import type { MasterConfig } from './config.js';
import { runCompileStep, type CompileStep } from './compile-steps.js';
import { FileRoots } from './file-roots.js';
import { compilePillar } from './pillar.js';
import { treeSchema } from './state-schema.js';

/**
 * A compile worker: runs compile steps for the master, off its event loop. It reads the file
 * roots itself and checks that its snapshot is the one the master's job was published with.
 */
export interface WorkerTask {
  task: number;
  /** A compile step, or a minion's classic pillar. */
  step?: CompileStep;
  pillar?: { id: string; grains: Grains; opts: PillarOptions };
  snapHash: string;
  jid?: string;
  answers: Map<string, HostAnswer>;
}

export type PillarOptions = { mergeLists?: boolean; nodegroups?: Record<string, string | string[]>; safeMatchersOnly?: boolean };

const config = workerData as Pick<MasterConfig, 'file_roots' | 'pillar_roots' | 'env_order' | 'render_timeout'>;
setRenderTimeout(config.render_timeout);
const files = new FileRoots(config.file_roots, config.env_order, () => undefined);
const pillars = new FileRoots(config.pillar_roots, config.env_order, () => undefined);
let schema: { hash: string; schema: ReturnType<typeof treeSchema> } | undefined;

parentPort!.on('message', (t: WorkerTask) => {
  if (t.pillar) {
    const snap = pillars.snapshot(t.jid);
    if (snap.hash !== t.snapHash) {
      parentPort!.postMessage({ task: t.task, stale: true });
      return;
    }
    try {
      const res = compilePillar(snap, { id: t.pillar.id, grains: t.pillar.grains }, t.pillar.opts);
      parentPort!.postMessage({ task: t.task, out: { ...res, pillar: packKeyOrder(res.pillar) } });
    } catch (e) {
      parentPort!.postMessage({ task: t.task, error: (e as Error).stack ?? String(e) });
    }
    return;
  }
  const snap = files.snapshot(t.jid);
  if (snap.hash !== t.snapHash) {
    parentPort!.postMessage({ task: t.task, stale: true });
    return;
  }
  if (schema?.hash !== snap.hash) schema = { hash: snap.hash, schema: treeSchema(snap) };
  // say which file is rendering, so a worker that dies of memory can be reported by file
  const render = (input: RenderInput) => {
    parentPort!.postMessage({ task: t.task, rendering: `${input.env}:${input.path}` });
    return renderSls(input);
  };
  try {
    const step = t.step!;
    const out = runCompileStep({ ...step, pillar: unpackKeyOrder(step.pillar) as typeof step.pillar }, snap, schema.schema, t.answers, render);
    parentPort!.postMessage({ task: t.task, out });
  } catch (e) {
    parentPort!.postMessage({ task: t.task, error: (e as Error).stack ?? String(e) });
  }
});
