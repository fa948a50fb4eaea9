import type { Param } from '@brine/exec';
import { minionErrors } from './errors.js';
import type { MinionExecContext, MinionFunction } from './exec-function.js';
import type { MinionSchedule, ScheduleAnswer } from './schedule.js';

function scheduler(ctx: MinionExecContext, fun: string): MinionSchedule {
  if (!ctx.schedule) throw minionErrors.make('BRINE_ERR_MINION_NO_SCHEDULER', { fun });
  return ctx.schedule;
}

/** Salt's `%Y-%m-%dT%H:%M:%S` in local time. */
function localIso(ms: number): string {
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

const name: Param = { name: 'name', type: 'string', required: true };

/** Salt answers with result False but a successful job; Brine says it with retcode 1 too. */
const answer = (r: ScheduleAnswer) => ({ return: r, retcode: r.result ? 0 : 1 });

/** Salt's schedule.* functions on this minion's schedule (the daemon's; `brine call` has none). */
export const SCHEDULE_FUNCTIONS: MinionFunction[] = [
  {
    name: 'schedule.list',
    doc: 'The jobs scheduled on this minion (YAML unless return_yaml=False).',
    params: [
      { name: 'show_all', type: 'boolean', default: false },
      { name: 'show_disabled', type: 'boolean', default: true },
      { name: 'where', type: 'any' },
      { name: 'return_yaml', type: 'boolean', default: true },
    ],
    run: (a, ctx) => ({ return: scheduler(ctx, 'schedule.list').list(a) }),
  },
  {
    name: 'schedule.is_enabled',
    doc: 'Whether the scheduler is enabled, or the named job as it is scheduled.',
    params: [{ name: 'name', type: 'string' }],
    run: (a, ctx) => {
      const list = scheduler(ctx, 'schedule.is_enabled').list({ return_yaml: false }) as Record<string, unknown>;
      if (typeof a.name !== 'string') return { return: list.enabled !== false };
      return { return: list[a.name] ?? {} };
    },
  },
  {
    name: 'schedule.add',
    doc: "Adds a job: schedule.add job1 function='test.ping' seconds=3600 (job_args, job_kwargs; persist=False keeps it until restart).",
    params: [name],
    extraKwargs: true,
    run: (a, ctx) => answer(scheduler(ctx, 'schedule.add').add(a.name as string, a.kwargs as Record<string, unknown>)),
  },
  {
    name: 'schedule.modify',
    doc: 'Replaces the options of a job (its function kept unless given).',
    params: [name],
    extraKwargs: true,
    run: (a, ctx) => answer(scheduler(ctx, 'schedule.modify').modify(a.name as string, a.kwargs as Record<string, unknown>)),
  },
  {
    name: 'schedule.delete',
    doc: 'Deletes a job.',
    params: [name],
    extraKwargs: true,
    run: (a, ctx) => answer(scheduler(ctx, 'schedule.delete').delete(a.name as string, a.kwargs as Record<string, unknown>)),
  },
  {
    name: 'schedule.enable_job',
    doc: 'Enables a job.',
    params: [name],
    extraKwargs: true,
    run: (a, ctx) => answer(scheduler(ctx, 'schedule.enable_job').setJobEnabled(a.name as string, true, a.kwargs as Record<string, unknown>)),
  },
  {
    name: 'schedule.disable_job',
    doc: 'Disables a job: it stays in the schedule and does not run.',
    params: [name],
    extraKwargs: true,
    run: (a, ctx) => answer(scheduler(ctx, 'schedule.disable_job').setJobEnabled(a.name as string, false, a.kwargs as Record<string, unknown>)),
  },
  {
    name: 'schedule.enable',
    doc: 'Enables the whole scheduler.',
    params: [],
    extraKwargs: true,
    run: (a, ctx) => answer(scheduler(ctx, 'schedule.enable').setEnabled(true, a.kwargs as Record<string, unknown>)),
  },
  {
    name: 'schedule.disable',
    doc: 'Disables the whole scheduler: no job runs until it is enabled.',
    params: [],
    extraKwargs: true,
    run: (a, ctx) => answer(scheduler(ctx, 'schedule.disable').setEnabled(false, a.kwargs as Record<string, unknown>)),
  },
  {
    name: 'schedule.run_job',
    doc: 'Runs a scheduled job now (force=True runs a disabled one).',
    params: [name, { name: 'force', type: 'boolean', default: false }],
    run: (a, ctx) => answer(scheduler(ctx, 'schedule.run_job').runJob(a.name as string, a.force === true)),
  },
  {
    name: 'schedule.show_next_fire_time',
    doc: 'When a job runs next (local time).',
    params: [name],
    run: (a, ctx) => {
      const next = scheduler(ctx, 'schedule.show_next_fire_time').engine.nextFireTime(a.name as string);
      if (next === undefined) return { return: { result: true, comment: 'next fire time not available.' } };
      return { return: { result: true, next_fire_time: localIso(next) } };
    },
  },
  {
    name: 'schedule.purge',
    doc: 'Deletes every job.',
    params: [],
    extraKwargs: true,
    run: (a, ctx) => answer(scheduler(ctx, 'schedule.purge').purge(a.kwargs as Record<string, unknown>)),
  },
];
