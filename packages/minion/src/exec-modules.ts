import type { ExecResult, Param } from '@brine/exec';
import type { MinionExecContext, MinionFunction, RunningJob } from './exec-function.js';
import { minionErrors } from './errors.js';

/** A running job as Salt's saltutil.running lists it (its proc file: the publish plus the pid). */
function saltJob(j: RunningJob): Record<string, unknown> {
  const kw = Object.keys(j.kwarg).length > 0 ? [{ ...j.kwarg, __kwarg__: true }] : [];
  return { arg: [...j.arg, ...kw], fun: j.fun, jid: j.jid, pid: j.pid, ret: '', started: j.started };
}

/** Salt's signal_job: "Signal N sent to job JID at pid PID", or '' when no such job runs here. */
function signalJob(ctx: MinionExecContext, jid: string, sig: number): ExecResult {
  const job = ctx.running().find((j) => j.jid === jid);
  if (!job || !ctx.kill(jid)) return { return: '' };
  return { return: `Signal ${sig} sent to job ${jid} at pid ${job.pid}` };
}

const jidParam: Param = { name: 'jid', type: ['string', 'number'], required: true };

function hooks(ctx: MinionExecContext, fun: string): Required<Pick<MinionExecContext, 'refreshGrains' | 'refreshPillar'>> {
  if (!ctx.refreshGrains || !ctx.refreshPillar) throw minionErrors.make('BRINE_ERR_MINION_FUNCTION_FAILED', { fun, detail: 'not in a minion job' });
  return { refreshGrains: ctx.refreshGrains, refreshPillar: ctx.refreshPillar };
}

/**
 * The module kinds Salt's sync_all reports, in its order. Brine loads custom state modules only
 * (`_states/`, saltutil.sync_states); every other kind answers an empty list, as Salt does for
 * a tree without that folder.
 */
export const SYNC_KINDS = [
  'tops',
  'clouds',
  'beacons',
  'modules',
  'states',
  'sdb',
  'grains',
  'renderers',
  'returners',
  'output',
  'utils',
  'log_handlers',
  'executors',
  'proxymodules',
  'engines',
  'thorium',
  'serializers',
  'matchers',
  'pillar',
  'wrapper',
] as const;

const syncParams: Param[] = [
  { name: 'saltenv', type: 'string' },
  { name: 'refresh', type: 'any' },
  { name: 'extmod_whitelist', type: 'any' },
  { name: 'extmod_blacklist', type: 'any' },
];

/** saltutil.sync_<kind> for the kinds Brine has no loader for: nothing to sync. */
const emptySyncs: MinionFunction[] = SYNC_KINDS.filter((k) => k !== 'states' && k !== 'tops').map((kind) => ({
  name: `saltutil.sync_${kind}`,
  doc: `Salt's sync_${kind}: Brine loads no custom ${kind} modules, so there is nothing to sync (an empty list).`,
  params: syncParams,
  run: () => ({ return: [] }),
}));

/** The saltutil functions that look at this minion's own jobs, grains and pillar (the plain ones live in @brine/exec). */
export const MINION_JOB_FUNCTIONS: MinionFunction[] = [
  {
    name: 'saltutil.running',
    doc: 'Jobs running on this minion right now.',
    params: [],
    run: (_a, ctx) => ({
      return: ctx
        .running()
        .filter((j) => j.jid !== ctx.jid)
        .map(saltJob),
    }),
  },
  {
    name: 'saltutil.find_job',
    doc: 'The data of a job running on this minion, {} when it is not running.',
    params: [jidParam],
    run: (a, ctx) => {
      const job = ctx.running().find((j) => j.jid === String(a.jid));
      return { return: job ? saltJob(job) : {} };
    },
  },
  {
    name: 'saltutil.kill_job',
    doc: 'Stops a running job by jid (Salt sends SIGKILL: the job returns as killed).',
    params: [jidParam],
    run: (a, ctx) => signalJob(ctx, String(a.jid), 9),
  },
  {
    name: 'saltutil.term_job',
    doc: 'Stops a running job by jid (Salt sends SIGTERM: the job returns as killed).',
    params: [jidParam],
    run: (a, ctx) => signalJob(ctx, String(a.jid), 15),
  },
  {
    name: 'saltutil.signal_job',
    doc: "Stops a running job by jid whatever the signal named (Brine's jobs run in the minion's process).",
    params: [jidParam, { name: 'sig', type: ['number', 'string'], required: true }],
    run: (a, ctx) => signalJob(ctx, String(a.jid), Number(a.sig)),
  },
  {
    name: 'saltutil.refresh_pillar',
    doc: 'Asks the master for this minion pillar again and fires the pillar refresh (mine, schedule); True.',
    params: [
      { name: 'wait', type: 'any' },
      { name: 'timeout', type: 'any' },
      { name: 'clean_cache', type: 'any' },
    ],
    run: async (_a, ctx) => {
      await hooks(ctx, 'saltutil.refresh_pillar').refreshPillar();
      return { return: true };
    },
  },
  {
    name: 'saltutil.refresh_grains',
    doc: 'Collects the grains again, sends them to the master and refreshes the pillar (refresh_pillar=False not); True.',
    params: [
      { name: 'refresh_pillar', type: 'any', default: true },
      { name: 'clean_pillar_cache', type: 'any' },
    ],
    run: async (a, ctx) => {
      const h = hooks(ctx, 'saltutil.refresh_grains');
      await h.refreshGrains();
      if (a.refresh_pillar !== false && a.refresh_pillar !== 'False' && a.refresh_pillar !== 'false') await h.refreshPillar();
      return { return: true };
    },
  },
  {
    name: 'saltutil.sync_all',
    doc: "Syncs every kind of custom module from the tree (Brine: the _states/ folder) and refreshes grains and pillar; Salt's dict of what changed.",
    params: [...syncParams, { name: 'clean_pillar_cache', type: 'any' }],
    run: async (a, ctx) => {
      if (!ctx.state) throw minionErrors.make('BRINE_ERR_MINION_FUNCTION_FAILED', { fun: 'saltutil.sync_all', detail: 'no master channel' });
      const states = await ctx.state.syncStates(typeof a.saltenv === 'string' ? a.saltenv : 'base');
      const out: Record<string, string[]> = {};
      for (const kind of SYNC_KINDS) out[kind] = kind === 'states' ? states.changed : [];
      if (a.refresh !== false && a.refresh !== 'False' && a.refresh !== 'false') {
        const h = hooks(ctx, 'saltutil.sync_all');
        await h.refreshGrains();
        await h.refreshPillar();
      }
      return { return: out };
    },
  },
  ...emptySyncs,
];
