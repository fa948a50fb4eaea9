/**
 * An in-process fleet for the engine's tests: each minion compiles its SLS with the real compiler
 * (its own pillar, the job's `pillar=` on top) and runs it with the real runtime and the states
 * package; other functions run through the real exec registry. Minions listed `down` never
 * return. Events go through a real EventEmitter with Salt's tag globs.
 */
import { compileHighstate, compileSls, matchTarget, type StateTree, type TargetType } from '@brine/compiler';
import { createCommandRunner, globMatch, type Pillar } from '@brine/core';
import { execCaller, execRegistry, runExec } from '@brine/exec';
import type { JobCall, JobOutcome, MinionReturn, OrchestrationJobs, RunnerCall, RunnerResult } from '@brine/orchestrate';
import { runLowState, slsNames } from '@brine/runtime';
import { defaultRegistry, dirFileClient } from '@brine/states';
import { EventEmitter } from 'node:events';

export interface LocalFleetOptions {
  tree: StateTree;
  /** The file roots behind `tree` (salt:// files of the minions' states). */
  roots?: Record<string, string[]>;
  minions: string[];
  down?: string[];
  pillar?: (id: string) => Pillar;
  grains?: (id: string) => Record<string, unknown>;
  runner?: (call: RunnerCall) => Promise<RunnerResult>;
}

export interface LocalFleet extends OrchestrationJobs {
  calls: JobCall[];
  jids: string[];
  bus: EventEmitter;
  fire(tag: string, data: unknown): void;
}

export function localFleet(o: LocalFleetOptions): LocalFleet {
  const bus = new EventEmitter();
  const calls: JobCall[] = [];
  const jids: string[] = [];
  const cmd = createCommandRunner();
  const exec = execRegistry();
  const states = defaultRegistry();
  const files = dirFileClient(o.roots ?? {});
  let n = 0;
  const grainsOf = (id: string) => ({ id, ...(o.grains?.(id) ?? {}) });

  async function runOn(id: string, call: JobCall, jid: string): Promise<MinionReturn> {
    const kw = call.kwarg;
    const pillar = { ...(o.pillar?.(id) ?? {}), ...((kw.pillar as Pillar | undefined) ?? {}) };
    const grains = grainsOf(id);
    const ctx = { jid, grains, pillar: () => Promise.resolve(pillar), opts: { id }, version: '0', signal: new AbortController().signal, cmd, registry: exec };
    if (call.fun === 'state.sls' || call.fun === 'state.highstate' || call.fun === 'state.apply') {
      const saltenv = typeof kw.saltenv === 'string' ? kw.saltenv : 'base';
      const opts = { tree: o.tree, minion: { id, grains }, pillar };
      const sls = slsNames(...call.arg);
      const c = call.fun === 'state.sls' || sls.length > 0 ? compileSls(opts, sls, saltenv) : compileHighstate(opts);
      if (c.failed) return { ret: c.diagnostics.map((d) => d.message), retcode: 1, success: false };
      const out = await runLowState(c.low, {
        registry: states,
        cmd,
        files,
        exec: execCaller(exec, ctx),
        templateContext: { grains, pillar, opts: { id } },
        ...(kw.test === true ? { test: true } : {}),
        ...(kw.failhard === true ? { failhard: true } : {}),
      });
      return { ret: out.running, retcode: out.retcode === 0 ? 0 : 2, success: out.retcode === 0 };
    }
    try {
      const r = await runExec(exec, call.fun, call.arg, call.kwarg, { ...ctx, direct: true });
      return { ret: r.return, retcode: r.retcode, success: r.retcode === 0 };
    } catch (e) {
      return { ret: `ERROR: ${(e as Error).message}`, retcode: 1, success: false };
    }
  }

  const fleet: LocalFleet = {
    calls,
    jids,
    bus,
    fire: (tag, data) => bus.emit('event', tag, data),
    async run(call: JobCall): Promise<JobOutcome> {
      calls.push(call);
      const targeted = o.minions.filter((id) => matchTarget(call.tgt, call.tgt_type as TargetType, { id, grains: grainsOf(id) }));
      if (targeted.length === 0) {
        const e = new Error(`No minions matched the target ${String(call.tgt)}`) as Error & { code: string };
        e.code = 'BRINE_ERR_MASTER_NO_MINIONS';
        throw e;
      }
      const jid = `2026112700000000${String(++n).padStart(4, '0')}`;
      jids.push(jid);
      const returns: Record<string, MinionReturn> = {};
      const missing: string[] = [];
      for (const id of targeted) {
        if (o.down?.includes(id)) missing.push(id);
        else returns[id] = await runOn(id, call, jid);
      }
      return { jid, returns, missing };
    },
    subscribe(glob, fn) {
      const on = (tag: string, data: unknown) => {
        if (globMatch(tag, glob)) fn(tag, data);
      };
      bus.on('event', on);
      return () => bus.off('event', on);
    },
    ...(o.runner ? { runner: o.runner } : {}),
  };
  return fleet;
}
