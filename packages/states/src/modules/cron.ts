import type { ArgSpec, CommandRunner, StateModule, StateReturn } from '@brine/core';
import { needPrograms } from '../util/which.js';
import { cronFile } from './cron-file.js';
import { cronMatched, listTab, needsChange, rmEnv, rmJob, rmSpecial, setEnv, setJob, setSpecial, type CronTab, type RmResult } from '@brine/exec';

/** Salt's `cron` states on a user's crontab (present, absent, env_present, env_absent, file). */

const timeKeys = ['minute', 'hour', 'daymonth', 'month', 'dayweek'] as const;

function field(v: unknown): string {
  return String(v).toLowerCase();
}

function optString(v: unknown): string | null {
  return v === undefined || v === null ? null : String(v);
}

/** The identifier a state means: `False` (or not given) means the command itself. */
function identifierOf(a: Record<string, unknown>, name: string): string {
  return a.identifier === undefined || a.identifier === false ? name : String(a.identifier);
}

/** Salt's _check_cron: what applying the state would do to the current tab. */
function checkCron(
  tab: CronTab,
  cmd: string,
  identifier: string,
  want: { times?: Record<string, string>; comment?: string | null; commented?: boolean; special?: string | null },
): 'present' | 'update' | 'absent' {
  const special = want.special ?? null;
  const comment = want.comment ?? null;
  const commented = want.commented ?? null;
  if (special === null) {
    for (const c of tab.crons) {
      if (!cronMatched(c, cmd, identifier)) continue;
      const pairs: Array<[unknown, unknown]> = [
        ...timeKeys.map((k): [unknown, unknown] => [c[k], want.times?.[k] ?? null]),
        [c.identifier, identifier],
        [c.cmd, cmd],
        [c.comment, comment],
        [c.commented, commented],
      ];
      return pairs.some(([h, w]) => needsChange(h, w)) ? 'update' : 'present';
    }
  } else {
    for (const c of tab.special) {
      if (!cronMatched(c, cmd, identifier)) continue;
      const pairs: Array<[unknown, unknown]> = [
        [c.spec, special],
        [c.identifier, identifier],
        [c.cmd, cmd],
        [c.comment, comment],
        [c.commented, commented],
      ];
      return pairs.some(([h, w]) => needsChange(h, w)) ? 'update' : 'present';
    }
  }
  return 'absent';
}

function checkEnv(tab: CronTab, name: string, value: string | null): 'present' | 'update' | 'absent' {
  const e = tab.env.find((x) => x.name === name);
  if (!e) return 'absent';
  return (value ?? '') !== e.value ? 'update' : 'present';
}

/** The job as the resource contract shows it. */
function jobState(tab: CronTab, cmd: string, identifier: string, user: string): Record<string, unknown> | null {
  const job = [...tab.crons, ...tab.special].find((c) => cronMatched(c, cmd, identifier));
  return job ? { user, ...job } : null;
}

const jobArgs: Record<string, ArgSpec> = {
  user: { type: 'string', default: 'root' },
  minute: { type: ['string', 'number'], default: '*' },
  hour: { type: ['string', 'number'], default: '*' },
  daymonth: { type: ['string', 'number'], default: '*' },
  month: { type: ['string', 'number'], default: '*' },
  dayweek: { type: ['string', 'number'], default: '*' },
  comment: { type: 'string' },
  commented: { type: 'boolean', default: false },
  identifier: { type: ['string', 'number', 'boolean'] },
  special: { type: 'string' },
};

async function present(a: Record<string, unknown>, cmd: CommandRunner, test: boolean): Promise<StateReturn> {
  const name = String(a.name).trim();
  const user = optString(a.user) ?? 'root';
  const identifier = identifierOf(a, name);
  const times = Object.fromEntries(timeKeys.map((k) => [k, field(a[k] ?? '*')])) as Record<(typeof timeKeys)[number], string>;
  const comment = optString(a.comment);
  const commented = a.commented === true;
  const special = optString(a.special);
  const ret: StateReturn = { name, changes: {}, result: true, comment: '' };
  const before = await listTab(cmd, user);
  ret.old_state = jobState(before, name, identifier, user);
  ret.new_state =
    special === null ? { user, ...times, cmd: name, identifier, comment, commented } : { user, spec: special, cmd: name, identifier, comment, commented };
  if (test) {
    const status = checkCron(before, name, identifier, { times, comment, commented, special });
    if (status === 'absent') return { ...ret, result: null, comment: `Cron ${name} is set to be added` };
    if (status === 'present') return { ...ret, comment: `Cron ${name} already present` };
    return { ...ret, result: null, comment: `Cron ${name} is set to be updated` };
  }
  const data =
    special === null
      ? await setJob(cmd, user, { ...times, cmd: name, comment, commented, identifier })
      : await setSpecial(cmd, user, { special, cmd: name, comment, commented, identifier });
  if (data === 'present') return { ...ret, comment: `Cron ${name} already present` };
  if (data === 'new') return { ...ret, comment: `Cron ${name} added to ${user}'s crontab`, changes: { [user]: name } };
  if (data === 'updated') return { ...ret, comment: `Cron ${name} updated`, changes: { [user]: name } };
  return { ...ret, result: false, comment: `Cron ${name} for user ${user} failed to commit with error \n${data.error}` };
}

async function absent(a: Record<string, unknown>, cmd: CommandRunner, test: boolean): Promise<StateReturn> {
  const name = String(a.name).trim();
  const user = optString(a.user) ?? 'root';
  const identifier = identifierOf(a, name);
  const special = optString(a.special);
  const ret: StateReturn = { name, changes: {}, result: true, comment: '', new_state: null };
  const before = await listTab(cmd, user);
  ret.old_state = jobState(before, name, identifier, user);
  if (test) {
    return checkCron(before, name, identifier, {}) === 'absent'
      ? { ...ret, comment: `Cron ${name} is absent` }
      : { ...ret, result: null, comment: `Cron ${name} is set to be removed` };
  }
  const data: RmResult = special === null ? await rmJob(cmd, user, name, identifier) : await rmSpecial(cmd, user, name, special, identifier);
  if (data === 'absent') return { ...ret, comment: `Cron ${name} already absent` };
  if (data === 'removed') return { ...ret, comment: `Cron ${name} removed from ${user}'s crontab`, changes: { [user]: name } };
  return { ...ret, result: false, comment: `Cron ${name} for user ${user} failed to commit with error ${data.error}` };
}

async function envPresent(a: Record<string, unknown>, cmd: CommandRunner, test: boolean): Promise<StateReturn> {
  const name = String(a.name);
  const user = optString(a.user) ?? 'root';
  const value = optString(a.value);
  const before = await listTab(cmd, user);
  const old = before.env.find((e) => e.name === name);
  const ret: StateReturn = { name, changes: {}, result: true, comment: '', old_state: old ? { user, ...old } : null, new_state: { user, name, value } };
  if (test) {
    const status = checkEnv(before, name, value);
    if (status === 'absent') return { ...ret, result: null, comment: `Cron env ${name} is set to be added` };
    if (status === 'present') return { ...ret, comment: `Cron env ${name} already present` };
    return { ...ret, result: null, comment: `Cron env ${name} is set to be updated` };
  }
  const data = await setEnv(cmd, user, name, value);
  if (data === 'present') return { ...ret, comment: `Cron env ${name} already present` };
  if (data === 'new') return { ...ret, comment: `Cron env ${name} added to ${user}'s crontab`, changes: { [user]: name } };
  if (data === 'updated') return { ...ret, comment: `Cron env ${name} updated`, changes: { [user]: name } };
  return { ...ret, result: false, comment: `Cron env ${name} for user ${user} failed to commit with error \n${data.error}` };
}

async function envAbsent(a: Record<string, unknown>, cmd: CommandRunner, test: boolean): Promise<StateReturn> {
  const name = String(a.name).trim();
  const user = optString(a.user) ?? 'root';
  const before = await listTab(cmd, user);
  const old = before.env.find((e) => e.name === name);
  const ret: StateReturn = { name, changes: {}, result: true, comment: '', old_state: old ? { user, ...old } : null, new_state: null };
  if (test) {
    return checkEnv(before, name, null) === 'absent'
      ? { ...ret, comment: `Cron env ${name} is absent` }
      : { ...ret, result: null, comment: `Cron env ${name} is set to be removed` };
  }
  const data = await rmEnv(cmd, user, name);
  if (data === 'absent') return { ...ret, comment: `Cron env ${name} already absent` };
  if (data === 'removed') return { ...ret, comment: `Cron env ${name} removed from ${user}'s crontab`, changes: { [user]: name } };
  return { ...ret, result: false, comment: `Cron env ${name} for user ${user} failed to commit with error ${data.error}` };
}

export function cronModule(): StateModule {
  return {
    name: 'cron',
    available: () => needPrograms('crontab'),
    functions: {
      present: { args: jobArgs, run: (a, ctx) => present(a, ctx.cmd, ctx.test) },
      absent: {
        args: { user: jobArgs.user!, identifier: jobArgs.identifier!, special: jobArgs.special! },
        extraArgs: true,
        run: (a, ctx) => absent(a, ctx.cmd, ctx.test),
      },
      env_present: {
        args: { user: jobArgs.user!, value: { type: ['string', 'number', 'boolean'] } },
        run: (a, ctx) => envPresent(a, ctx.cmd, ctx.test),
      },
      env_absent: { args: { user: jobArgs.user! }, run: (a, ctx) => envAbsent(a, ctx.cmd, ctx.test) },
      file: {
        args: {
          user: jobArgs.user!,
          source_hash: { type: 'string' },
          source_hash_name: { type: 'string' },
          template: { type: 'string' },
          context: { type: 'dict' },
          defaults: { type: 'dict' },
          replace: { type: 'boolean' },
          backup: { type: 'string' },
        },
        run: cronFile,
      },
    },
  };
}
