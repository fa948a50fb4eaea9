import { existsSync } from 'node:fs';
import { readlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { ArgSpec, Availability, StateContext, StateModule, StateReturn } from '@brine/core';
import { systemctl as runSystemctl, unitStatus } from '@brine/exec';
import { asBool } from '../util/args.js';
import { which } from '../util/which.js';

const args: Record<string, ArgSpec> = {
  enable: { type: 'boolean' },
  reload: { type: 'boolean' },
  full_restart: { type: 'boolean' },
  init_delay: { type: 'number' },
  timeout: { type: 'number' },
  unmask: { type: 'boolean' },
  no_block: { type: 'boolean' },
};

interface Status {
  loaded: boolean;
  active: boolean;
  enabled: boolean;
}

async function status(ctx: StateContext, name: string): Promise<Status> {
  return unitStatus(ctx.cmd, name);
}

function resource(name: string, s: Status): Record<string, unknown> {
  return { name, running: s.active, enabled: s.enabled };
}

async function systemctl(ctx: StateContext, verb: string, name: string, noBlock = false): Promise<{ ok: boolean; err: string }> {
  return runSystemctl(ctx.cmd, verb, name, noBlock);
}

/** Enables or disables when asked; returns the comment part and whether it failed. */
async function applyEnable(ctx: StateContext, name: string, enable: boolean | undefined, st: Status, ret: StateReturn, suffix: string): Promise<string> {
  if (enable === undefined) return '';
  if (enable === st.enabled) return `\nService ${name} is already ${enable ? 'enabled' : 'disabled'}, and ${suffix}`;
  if (ctx.test) {
    ret.result = ret.result === false ? false : null;
    ret.changes[name] = true;
    return `\nService ${name} set to be ${enable ? 'enabled' : 'disabled'}`;
  }
  const r = await systemctl(ctx, enable ? 'enable' : 'disable', name);
  if (!r.ok) {
    ret.result = false;
    return `\nFailed when setting service ${name} to ${enable ? 'start' : 'not start'} at boot: ${r.err}`;
  }
  ret.changes[name] = true;
  return `\nService ${name} has been ${enable ? 'enabled' : 'disabled'}, and ${suffix}`;
}

function notAvailable(name: string): StateReturn {
  return { name, changes: {}, result: false, comment: `The named service ${name} is not available` };
}

async function running(a: Record<string, unknown>, ctx: StateContext): Promise<StateReturn> {
  const name = String(a.name);
  const st = await status(ctx, name);
  if (!st.loaded) return notAvailable(name);
  const ret: StateReturn = { name, changes: {}, result: true, comment: '', old_state: resource(name, st) };
  const enable = a.enable === undefined || a.enable === null ? undefined : asBool(a.enable);
  let comment: string;
  if (st.active) comment = `The service ${name} is already running`;
  else if (ctx.test) {
    ret.result = null;
    ret.changes[name] = true;
    comment = `Service ${name} is set to start`;
  } else {
    const r = await systemctl(ctx, 'start', name, asBool(a.no_block));
    const after = await status(ctx, name);
    if (!r.ok || !after.active) {
      ret.result = false;
      comment = `Service ${name} failed to start${r.err ? `: ${r.err}` : ''}`;
    } else {
      ret.changes[name] = true;
      comment = `Started service ${name}`;
    }
  }
  comment += await applyEnable(ctx, name, enable, st, ret, 'is running');
  ret.comment = comment;
  if (!ctx.test) ret.new_state = resource(name, await status(ctx, name));
  return ret;
}

async function dead(a: Record<string, unknown>, ctx: StateContext): Promise<StateReturn> {
  const name = String(a.name);
  const st = await status(ctx, name);
  if (!st.loaded) return { name, changes: {}, result: true, comment: `The named service ${name} is not available` };
  const ret: StateReturn = { name, changes: {}, result: true, comment: '', old_state: resource(name, st) };
  const enable = a.enable === undefined || a.enable === null ? undefined : asBool(a.enable);
  let comment: string;
  if (!st.active) comment = `The service ${name} is already dead`;
  else if (ctx.test) {
    ret.result = null;
    ret.changes[name] = true;
    comment = `Service ${name} is set to be killed`;
  } else {
    const r = await systemctl(ctx, 'stop', name, asBool(a.no_block));
    if (!r.ok) {
      ret.result = false;
      comment = `Service ${name} failed to die${r.err ? `: ${r.err}` : ''}`;
    } else {
      ret.changes[name] = true;
      comment = `Service ${name} was killed`;
    }
  }
  comment += await applyEnable(ctx, name, enable, st, ret, 'is dead');
  ret.comment = comment;
  if (!ctx.test) ret.new_state = resource(name, await status(ctx, name));
  return ret;
}

function enableFn(enable: boolean) {
  return async (a: Record<string, unknown>, ctx: StateContext): Promise<StateReturn> => {
    const name = String(a.name);
    const st = await status(ctx, name);
    if (!st.loaded) return notAvailable(name);
    const ret: StateReturn = { name, changes: {}, result: true, comment: '', old_state: resource(name, st) };
    ret.comment = (await applyEnable(ctx, name, enable, st, ret, 'is in the desired state')).slice(1);
    if (!ctx.test) ret.new_state = resource(name, await status(ctx, name));
    return ret;
  };
}

export interface ServiceModuleOptions {
  /** Whether systemd is the running init; default: /run/systemd/system exists. */
  systemdRunning?: () => boolean;
  /** Another root for unit masks (systemctl --root), as Salt's `root` argument. */
  root?: string;
}

const UNIT_TYPES = ['service', 'socket', 'device', 'mount', 'automount', 'swap', 'target', 'path', 'timer'];
const unitName = (name: string) => (UNIT_TYPES.some((t) => name.endsWith(t)) ? name : `${name}.service`);

/** Salt's service.masked/unmasked: the unit's link in /etc (or /run) points at /dev/null. */
function maskFn(mask: boolean, root: string | undefined) {
  const isMasked = async (name: string, runtime: boolean) =>
    (await readlink(join(root ?? '/', runtime ? 'run' : 'etc', 'systemd/system', unitName(name))).catch(() => '')) === '/dev/null';
  return async (a: Record<string, unknown>, ctx: StateContext): Promise<StateReturn> => {
    const name = String(a.name);
    const runtime = asBool(a.runtime);
    const kind = runtime ? 'runtime masked' : 'masked';
    const action = mask ? kind : runtime ? 'runtime unmasked' : 'unmasked';
    const expected = { [kind]: { old: !mask, new: mask } };
    const before = await isMasked(name, runtime);
    const ret: StateReturn = { name, changes: {}, result: true, comment: '', old_state: { name, [kind]: before } };
    if (before === mask)
      return { ...ret, comment: mask ? `Service ${name} is already ${kind}` : `Service ${name} was already ${action}`, new_state: ret.old_state };
    if (ctx.test) return { ...ret, result: null, changes: expected, comment: `Service ${name} would be ${action}` };
    const r = await ctx.cmd.run(['systemctl', ...(root ? ['--root', root] : []), mask ? 'mask' : 'unmask', ...(runtime ? ['--runtime'] : []), unitName(name)]);
    if (r.retcode !== 0) {
      const out = `${r.stdout}${r.stderr}`.trim();
      return { ...ret, result: false, comment: mask ? `Failed to mask service '${name}'${out ? `: ${out}` : ''}` : `Failed to unmask service '${name}'` };
    }
    const after = await isMasked(name, runtime);
    ret.new_state = { name, [kind]: after };
    if (after === mask) return { ...ret, changes: expected, comment: `Service ${name} was ${action}` };
    return { ...ret, comment: mask ? `Failed to mask service ${name}` : `Failed to unmask service ${name}` };
  };
}

const maskArgs: Record<string, ArgSpec> = { runtime: { type: 'boolean' } };

/** Salt's `service` states on systemd hosts (systemctl). */
export function serviceModule(options: ServiceModuleOptions = {}): StateModule {
  const running_ = options.systemdRunning ?? (() => existsSync('/run/systemd/system'));
  return {
    name: 'service',
    available(): Availability {
      if (!which('systemctl')) return { available: false, reason: 'systemctl not found' };
      if (!running_()) return { available: false, reason: 'systemd is not running (no /run/systemd/system)' };
      return { available: true };
    },
    functions: {
      running: { args, run: running },
      dead: { args, run: dead },
      enabled: { args, run: enableFn(true) },
      disabled: { args, run: enableFn(false) },
      masked: { args: maskArgs, run: maskFn(true, options.root) },
      unmasked: { args: maskArgs, run: maskFn(false, options.root) },
    },
    async modWatch(a, ctx) {
      const name = String(a.name);
      const sfun = String(a.sfun);
      const ret: StateReturn = { name, changes: {}, result: true, comment: '' };
      let verb: string;
      let done: string;
      if (sfun === 'dead') {
        const st = await status(ctx, name);
        if (!st.active) {
          ret.comment = 'Service is already stopped';
          return ret;
        }
        verb = 'stop';
        done = 'stopped';
      } else if (sfun === 'running') {
        const st = await status(ctx, name);
        if (!st.loaded) return notAvailable(name);
        if (!st.active) {
          verb = 'start';
          done = 'started';
        } else if (asBool(a.reload)) {
          verb = 'reload';
          done = 'reloaded';
        } else {
          verb = 'restart';
          done = 'restarted';
        }
      } else {
        return { name, changes: {}, result: false, comment: `Unable to trigger watch for service.${sfun}` };
      }
      if (ctx.test) {
        ret.result = null;
        ret.comment = `Service is set to be ${done}`;
        return ret;
      }
      const r = await systemctl(ctx, verb, name);
      ret.changes[name] = r.ok;
      ret.result = r.ok;
      ret.comment = r.ok ? `Service ${done}` : `Failed to ${verb} the service${r.err ? `: ${r.err}` : ''}`;
      ret.new_state = resource(name, await status(ctx, name));
      return ret;
    },
  };
}
