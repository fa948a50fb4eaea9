import {
  compileMatches,
  compileSls,
  compileTopFiles,
  renderSls,
  strictParams,
  validateSls,
  type CompileOptions,
  type HostAnswer,
  type RenderInput,
  type RenderOutput,
  type StateSchema,
  type TopMergeStrategy,
  type ValidateResult,
} from '@brine/compiler';
import type { Grains, Matches, Pillar } from '@brine/core';
import type { TreeSnapshot } from './file-roots.js';

/**
 * One step of a minion's compile, as plain data: the master runs it in a compile worker (in
 * process only where a StateService has no pool: tests, never the master); the result is plain
 * data again. The caching, the host-call rounds and the shared compiles stay with the master.
 * `validate` is `brine validate --minion`'s render.
 */
export interface CompileStep {
  op: 'top' | 'matches' | 'sls' | 'validate';
  id: string;
  grains: Grains;
  pillar: Pillar;
  ext: Matches;
  matches?: Matches;
  sls?: string[];
  saltenv?: string;
  raw: boolean;
  params: Record<string, unknown>;
  strategy: TopMergeStrategy;
  defaultTop: string;
  stateTop: string;
  nodegroups: Record<string, string | string[]>;
  /** `opts` as templates see it: the master's view of the minion (minionOpts). */
  opts?: Record<string, unknown>;
}

export interface StepResult {
  result: ReturnType<typeof compileTopFiles> | ReturnType<typeof compileMatches> | ValidateResult;
  /** Whether a template read the minion id (a compile that did is not shared with other minions). */
  idRead: boolean;
  /** PGP blocks of `#!...|gpg` state files (block, file): the master decrypts them in the result. */
  gpg?: Array<[block: string, file: string]>;
}

/** Grains whose `id` is watched: a compile that never reads it is the same for every minion of that shape. */
export function watchIdReads(grains: Grains): { grains: Grains; read: () => boolean } {
  let read = false;
  const proxy = new Proxy(grains, {
    get(t, k, r) {
      if (k === 'id') read = true;
      return Reflect.get(t, k, r);
    },
    has(t, k) {
      if (k === 'id') read = true;
      return Reflect.has(t, k);
    },
    ownKeys(t) {
      read = true;
      return Reflect.ownKeys(t);
    },
    getOwnPropertyDescriptor(t, k) {
      if (k === 'id') read = true;
      return Reflect.getOwnPropertyDescriptor(t, k);
    },
  });
  return { grains: proxy, read: () => read };
}

export function runCompileStep(
  step: CompileStep,
  snap: TreeSnapshot,
  schema: StateSchema,
  hostAnswers: Map<string, HostAnswer>,
  renderFile: (input: RenderInput) => RenderOutput = renderSls,
): StepResult {
  const gpg = new Map<string, string>();
  const opts = step.opts;
  const render = (input: RenderInput) =>
    renderFile({ ...input, context: { ...input.context, gpg, ...(opts ? { opts: { ...input.context.opts, ...opts } } : {}) } });
  const out = runWith(step, snap, schema, hostAnswers, render);
  return gpg.size > 0 ? { ...out, gpg: [...gpg] } : out;
}

function runWith(
  step: CompileStep,
  snap: TreeSnapshot,
  schema: StateSchema,
  hostAnswers: Map<string, HostAnswer>,
  render: (input: RenderInput) => RenderOutput,
): StepResult {
  const watch = watchIdReads(step.grains);
  const opts: CompileOptions = {
    tree: snap.tree,
    minion: { id: step.id, grains: step.op === 'top' ? step.grains : watch.grains },
    pillar: step.pillar,
    render,
    schema,
    strategy: step.strategy,
    defaultTop: step.defaultTop,
    stateTop: step.stateTop,
    nodegroups: step.nodegroups,
    extMatches: step.ext,
    params: strictParams(step.params),
    ...(step.saltenv ? { saltenv: step.saltenv } : {}),
    hostAnswers,
  };
  if (step.op === 'top') return { result: compileTopFiles(opts), idRead: true };
  if (step.op === 'validate') {
    const { params: _params, ...rest } = opts;
    return { result: validateSls(rest, step.sls ?? [], step.saltenv ?? 'base'), idRead: true };
  }
  const result = step.op === 'sls' ? compileSls(opts, step.sls ?? [], step.saltenv ?? 'base', step.raw) : compileMatches(opts, step.matches ?? {}, step.raw);
  return { result, idRead: watch.read() };
}
