import { parentPort, workerData } from 'node:worker_threads';
import { renderSls, setRenderTimeout, type HostAnswer, type RenderInput } from '@brine/compiler';
import { unpackKeyOrder } from '@brine/core';
import type { MasterConfig } from './config.js';
import { runCompileStep, type CompileStep } from './compile-steps.js';
import { FileRoots } from './file-roots.js';
import { treeSchema } from './state-schema.js';

/**
 * A compile worker: runs compile steps for the master, off its event loop. It reads the file
 * roots itself and checks that its snapshot is the one the master's job was published with.
 */
export interface WorkerTask {
  task: number;
  step: CompileStep;
  snapHash: string;
  jid?: string;
  answers: Map<string, HostAnswer>;
}

const config = workerData as Pick<MasterConfig, 'file_roots' | 'env_order' | 'render_timeout'>;
setRenderTimeout(config.render_timeout);
const files = new FileRoots(config.file_roots, config.env_order, () => undefined);
let schema: { hash: string; schema: ReturnType<typeof treeSchema> } | undefined;

parentPort!.on('message', (t: WorkerTask) => {
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
    const out = runCompileStep({ ...t.step, pillar: unpackKeyOrder(t.step.pillar) as typeof t.step.pillar }, snap, schema.schema, t.answers, render);
    parentPort!.postMessage({ task: t.task, out });
  } catch (e) {
    parentPort!.postMessage({ task: t.task, error: (e as Error).stack ?? String(e) });
  }
});
