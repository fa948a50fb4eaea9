import { randomUUID } from 'node:crypto';
import { isDict } from '@brine/core';
import type { ExecResult, Param } from '@brine/exec';
import type { MinionExecContext, MinionFunction } from './exec-function.js';
import { minionErrors } from './errors.js';

/**
 * Sends an event to the master's bus (Salt's `_minion_event`). The master fills in this minion's
 * id and, when it runs this job, the jid; it refuses tags under salt/ and brine/. The event id
 * is made once, so a request asked again after a failover is the same event to the reactor.
 */
async function fireMaster(ctx: MinionExecContext, fun: string, tag: unknown, data: unknown, preload: unknown): Promise<ExecResult> {
  if (!ctx.state) throw minionErrors.make('BRINE_ERR_MINION_FUNCTION_FAILED', { fun, detail: 'no master channel' });
  if (typeof tag !== 'string') throw minionErrors.make('BRINE_ERR_MINION_FUNCTION_FAILED', { fun, detail: 'the tag must be a string' });
  await ctx.state.request('event.fire', {
    tag,
    data: data ?? {},
    ...(preload !== undefined && preload !== null ? { preload } : {}),
    ...(ctx.jid ? { jid: ctx.jid } : {}),
    eid: randomUUID(),
  });
  return { return: true };
}

/** `with_grains` / `with_pillar`: true for all of it, or a list of keys to send. */
function pick(all: Record<string, unknown>, which: unknown): Record<string, unknown> {
  if (!Array.isArray(which)) return all;
  return Object.fromEntries(which.map(String).map((k) => [k, all[k]]));
}

const truthy = (v: unknown) => v !== undefined && v !== null && v !== false && v !== '' && !(Array.isArray(v) && v.length === 0);
const timeout: Param = { name: 'timeout', type: 'any', default: 60 };

/** Salt's event.send and event.fire_master: a minion's events reach the master's bus (and reactor). */
export const EVENT_FUNCTIONS: MinionFunction[] = [
  {
    name: 'event.send',
    doc: "Sends an event to the master: event.send myco/deploy/done '{version: 3}' (the master adds id; tags under salt/ and brine/ are refused).",
    params: [
      { name: 'tag', type: 'string', required: true },
      { name: 'data', type: 'any' },
      { name: 'preload', type: 'dict' },
      { name: 'with_env', type: 'any' },
      { name: 'with_grains', type: 'any' },
      { name: 'with_pillar', type: 'any' },
      { name: 'with_env_opts', type: 'any' },
      timeout,
    ],
    extraKwargs: true,
    run: async (a, ctx) => {
      const out: Record<string, unknown> = {};
      if (truthy(a.with_env)) out.environ = { ...process.env };
      if (truthy(a.with_grains)) out.grains = pick(ctx.grains, a.with_grains);
      if (truthy(a.with_pillar)) out.pillar = pick(await ctx.pillar(), a.with_pillar);
      if (truthy(a.with_env_opts)) out.saltenv = ctx.opts.saltenv ?? 'base';
      Object.assign(out, a.kwargs as Record<string, unknown>);
      if (isDict(a.data)) Object.assign(out, a.data);
      return fireMaster(ctx, 'event.send', a.tag, out, a.preload);
    },
  },
  {
    name: 'event.fire_master',
    doc: 'Fires an event on the master: event.fire_master \'{"x": 1}\' myco/tag (data first, as in Salt).',
    params: [{ name: 'data', type: 'any', required: true }, { name: 'tag', type: 'string', required: true }, { name: 'preload', type: 'dict' }, timeout],
    run: (a, ctx) => fireMaster(ctx, 'event.fire_master', a.tag, isDict(a.data) ? a.data : { data: a.data }, a.preload),
  },
];
