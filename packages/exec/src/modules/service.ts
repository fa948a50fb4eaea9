import { existsSync, readdirSync } from 'node:fs';
import { globMatch } from '@brine/core';
import { execErrors } from '../errors.js';
import type { ExecContext, ExecFunction, Param } from '../function.js';
import { systemctl } from '../host/systemd.js';

const name: Param = { name: 'name', type: 'string', required: true };
const noBlock: Param = { name: 'no_block', type: 'boolean', default: false };

/**
 * Salt loads systemd_service only where systemd is the init (booted); elsewhere on Debian it
 * uses debian_service, which works through /etc/init.d and the `service` command.
 */
export function systemdBooted(): boolean {
  return existsSync('/run/systemd/system');
}

function initScripts(): string[] {
  try {
    return readdirSync('/etc/init.d')
      .filter((n) => !n.startsWith('.') && n !== 'README' && n !== 'skeleton' && n !== 'rc' && n !== 'rcS')
      .sort();
  } catch {
    return [];
  }
}

async function sysv(ctx: ExecContext, name: string, verb: string): Promise<boolean> {
  return (await ctx.cmd.run(['service', name, verb])).retcode === 0;
}

/** debian_service.enabled: a start link in the default runlevel's rc directory. */
function sysvEnabled(name: string): boolean {
  try {
    return readdirSync('/etc/rc2.d').some((n) => new RegExp(`^S\\d\\d${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`).test(n));
  } catch {
    return false;
  }
}

/** The service names systemd knows (units of type service, without the suffix). */
async function allServices(ctx: ExecContext): Promise<string[]> {
  if (!systemdBooted()) return initScripts();
  const r = await ctx.cmd.run(['systemctl', 'list-unit-files', '--type=service', '--all', '--full', '--no-legend', '--no-pager']);
  const names = new Set<string>();
  for (const line of r.stdout.split('\n')) {
    const unit = line.trim().split(/\s+/)[0] ?? '';
    if (unit.endsWith('.service')) names.add(unit.slice(0, -'.service'.length));
  }
  return [...names].sort();
}

/** Salt raises with systemctl's message when start/restart/reload fail, so the job shows why. */
function mustSucceed(fun: string) {
  return async (a: Record<string, unknown>, ctx: ExecContext) => {
    const verb = fun.slice('service.'.length);
    if (!systemdBooted()) return { return: await sysv(ctx, a.name as string, verb) };
    const r = await systemctl(ctx.cmd, verb, a.name as string, a.no_block === true);
    if (!r.ok) throw execErrors.make('BRINE_ERR_EXEC_FAILED', { fun, detail: r.err });
    return { return: true };
  };
}

async function retcodeIsZero(ctx: ExecContext, argv: string[]): Promise<boolean> {
  return (await ctx.cmd.run(argv)).retcode === 0;
}

/** Salt's systemd_service module. */
export const serviceFunctions: ExecFunction[] = [
  {
    name: 'service.status',
    doc: 'True if the service is active; a name with globs gives a dict of the matching services.',
    params: [name, { name: 'sig', type: 'any' }, { name: 'wait', type: 'number' }],
    run: async (a, ctx) => {
      const n = a.name as string;
      const one = (s: string) => (systemdBooted() ? retcodeIsZero(ctx, ['systemctl', 'is-active', '--', s]) : sysv(ctx, s, 'status'));
      if (!/[*?[]/.test(n)) return { return: await one(n) };
      const out: Record<string, boolean> = {};
      for (const s of (await allServices(ctx)).filter((s) => globMatch(s, n))) out[s] = await one(s);
      return { return: out };
    },
  },
  {
    name: 'service.available',
    doc: 'True if systemd knows the service (its unit is loaded or loadable).',
    params: [name],
    run: async (a, ctx) => {
      if (!systemdBooted()) return { return: initScripts().includes(a.name as string) };
      // systemctl status: 0-3 for a known unit, 4 for one it cannot find
      const r = await ctx.cmd.run(['systemctl', 'status', '--no-pager', '--', a.name as string]);
      return { return: r.retcode >= 0 && r.retcode < 4 };
    },
  },
  {
    name: 'service.missing',
    doc: 'True if systemd does not know the service (the opposite of service.available).',
    params: [name],
    run: async (a, ctx) => {
      if (!systemdBooted()) return { return: !initScripts().includes(a.name as string) };
      const r = await ctx.cmd.run(['systemctl', 'status', '--no-pager', '--', a.name as string]);
      return { return: !(r.retcode >= 0 && r.retcode < 4) };
    },
  },
  {
    name: 'service.enabled',
    doc: 'True if the service starts at boot (systemctl is-enabled).',
    params: [name, { name: 'root', type: 'string' }],
    extraKwargs: true,
    run: async (a, ctx) => ({
      return: systemdBooted() ? await retcodeIsZero(ctx, ['systemctl', 'is-enabled', '--', a.name as string]) : sysvEnabled(a.name as string),
    }),
  },
  {
    name: 'service.disabled',
    doc: 'True if the service does not start at boot.',
    params: [name, { name: 'root', type: 'string' }],
    run: async (a, ctx) => ({
      return: !(systemdBooted() ? await retcodeIsZero(ctx, ['systemctl', 'is-enabled', '--', a.name as string]) : sysvEnabled(a.name as string)),
    }),
  },
  {
    name: 'service.get_all',
    doc: 'Every service systemd knows, sorted.',
    params: [{ name: 'root', type: 'string' }],
    run: async (_a, ctx) => ({ return: await allServices(ctx) }),
  },
  {
    name: 'service.start',
    doc: 'Starts the service; True, or the error systemctl gave.',
    params: [name, noBlock, { name: 'unmask', type: 'any' }, { name: 'unmask_runtime', type: 'any' }],
    run: mustSucceed('service.start'),
  },
  {
    name: 'service.restart',
    doc: 'Restarts the service; True, or the error systemctl gave.',
    params: [name, noBlock, { name: 'unmask', type: 'any' }, { name: 'unmask_runtime', type: 'any' }],
    run: mustSucceed('service.restart'),
  },
  {
    name: 'service.reload',
    doc: 'Reloads the service; True, or the error systemctl gave.',
    params: [name, noBlock, { name: 'unmask', type: 'any' }, { name: 'unmask_runtime', type: 'any' }],
    run: mustSucceed('service.reload'),
  },
  {
    name: 'service.stop',
    doc: 'Stops the service; True if systemctl succeeded.',
    params: [name, noBlock],
    run: async (a, ctx) => ({
      return: systemdBooted() ? (await systemctl(ctx.cmd, 'stop', a.name as string, a.no_block === true)).ok : await sysv(ctx, a.name as string, 'stop'),
    }),
  },
  {
    name: 'service.enable',
    doc: 'Makes the service start at boot; True if systemctl succeeded.',
    params: [name, noBlock, { name: 'root', type: 'string' }],
    extraKwargs: true,
    run: async (a, ctx) => ({ return: (await systemctl(ctx.cmd, 'enable', a.name as string, a.no_block === true)).ok }),
  },
  {
    name: 'service.disable',
    doc: 'Stops the service starting at boot; True if systemctl succeeded.',
    params: [name, noBlock, { name: 'root', type: 'string' }],
    extraKwargs: true,
    run: async (a, ctx) => ({ return: (await systemctl(ctx.cmd, 'disable', a.name as string, a.no_block === true)).ok }),
  },
];
