import type { StateContext, StateReturn } from '@brine/core';
import type { OrchestrationJobs } from './jobs.js';

type Args = Record<string, unknown>;

/** The event's identifier: `data[event_id]`, else `data.data[event_id]` (events fired with `event.send` nest it). */
function identifier(data: unknown, key: string): unknown {
  if (data === null || typeof data !== 'object') return undefined;
  const d = data as Record<string, unknown>;
  if (d[key] !== undefined && d[key] !== null) return d[key];
  const inner = d.data;
  if (inner !== null && typeof inner === 'object') return (inner as Record<string, unknown>)[key] ?? undefined;
  return undefined;
}

/**
 * Salt's `salt.wait_for_event`: waits until an event whose tag matches `name` has been seen for
 * every identifier of `id_list` (read from the event's `event_id` key), or the timeout.
 */
export function waitForEvent(jobs: OrchestrationJobs, a: Args, ctx: StateContext): Promise<StateReturn> | StateReturn {
  const name = String(a.name);
  const ret: StateReturn = { name, changes: {}, comment: '', result: false };
  if (ctx.test) return { ...ret, result: null, comment: `Orchestration would wait for event '${name}'` };
  const waiting = Array.isArray(a.id_list) ? a.id_list.map(String) : [];
  const key = typeof a.event_id === 'string' ? a.event_id : 'id';
  const timeout = a.timeout === undefined ? 300 : Number(a.timeout);
  const started = performance.now();
  const seen: string[] = [];
  return new Promise<StateReturn>((resolve) => {
    let stop = () => {};
    const done = (ok: boolean) => {
      stop();
      clearTimeout(timer);
      if (seen.length > 0) ret.changes = { minions_seen: seen };
      ret.result = ok;
      ret.comment = ok ? `All events seen in ${(performance.now() - started) / 1000} seconds.` : 'Timeout value reached.';
      resolve(ret);
    };
    const timer = setTimeout(() => done(false), Math.max(0, timeout) * 1000);
    stop = jobs.subscribe(name, (_tag, data) => {
      const val = identifier(data, key);
      if (val === undefined) return;
      for (const v of Array.isArray(val) ? val.map(String) : [String(val)]) {
        const at = waiting.indexOf(v);
        if (at < 0) continue;
        waiting.splice(at, 1);
        seen.push(v);
      }
      if (waiting.length === 0) done(true);
    });
    if (waiting.length === 0) done(true);
  });
}
