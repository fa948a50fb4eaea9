import { readlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { ArgSpec, Availability, StateContext, StateModule, StateReturn } from '@brine/core';
import { asBool } from '../util/args.js';
import { serviceBackend, serviceHostSupport, type BackendOptions, type ServiceBackend } from './service-backend.js';

const args: Record<string, ArgSpec> = {
  enable: { type: 'boolean' },
  reload: { type: 'boolean' },
  full_restart: { type: 'boolean' },
  force: { type: 'boolean' },
  init_delay: { type: 'number' },
  timeout: { type: 'number' },
  unmask: { type: 'boolean' },
  no_block: { type: 'boolean' },
};

const OFFLINE = 'Running in OFFLINE mode. Nothing to do';
const notAvailable = (name: string) => `The named service ${name} is not available`;
const notPresent = (name: string, verb: string) => `Service ${name} not present; if created in this state run, it would have been ${verb}`;

/** What `started` says at the end of Salt's enable/disable comments: running, desired state, dead. */
type Started = boolean | null;
const tail = (started: Started, running: string, desired: string, dead: string) => (started === true ? running : started === null ? desired : dead);

/** Salt's _enable: the fields it sets on the state's return (result, comment, sometimes changes). */
async function enableService(b: ServiceBackend, name: string, started: Started, test: boolean, result: boolean | null = true): Promise<Partial<StateReturn>> {
  if (!(await b.available(name))) return { result: false, comment: notAvailable(name) };
  if (await b.enabled(name)) {
    const comment = `Service ${name} is already enabled, and ${tail(started, 'is running', 'is in the desired state', 'is dead')}`;
    return started === null ? { result, comment, changes: {} } : { result, comment };
  }
  if (test) return { result: null, comment: `Service ${name} set to be enabled` };
  const r = await b.enable(name);
  if (r.ok) {
    const changes = (await b.enabled(name)) ? { [name]: true } : {};
    return { result, changes, comment: `Service ${name} has been enabled, and ${tail(started, 'is running', 'is in the desired state', 'is dead')}` };
  }
  const why = tail(started, ', but the service is running', ', but the service was already running', ', and the service is dead');
  return {
    result: false,
    comment: `Failed when setting service ${name} to start at boot${why}${r.err ? `. Additional information follows:\n\n${r.err}` : ''}`,
  };
}

/** Salt's _disable (a service that is not there counts as disabled). */
async function disableService(b: ServiceBackend, name: string, started: Started, test: boolean, result: boolean | null = true): Promise<Partial<StateReturn>> {
  if (!(await b.available(name))) return { result: true, comment: notAvailable(name) };
  if (await b.disabled(name)) {
    const comment = `Service ${name} is already disabled, and ${tail(started, 'is running', 'is in the desired state', 'is dead')}`;
    return started === null ? { result, comment, changes: {} } : { result, comment };
  }
  if (test) return { result: null, comment: `Service ${name} set to be disabled` };
  if (await b.disable(name)) {
    const changes = (await b.disabled(name)) ? { [name]: true } : {};
    return { result, changes, comment: `Service ${name} has been disabled, and ${tail(started, 'is running', 'is in the desired state', 'is dead')}` };
  }
  const why = tail(started, ', and is running', ', but the service was already running', ', and the service is dead');
  return { result: false, comment: `Failed when setting service ${name} to not start at boot${why}` };
}

function enableArg(a: Record<string, unknown>): boolean | undefined {
  return a.enable === undefined || a.enable === null ? undefined : asBool(a.enable);
}

/** Sets or clears start at boot as `enable` asks, merging Salt's way (the later fields win). */
async function toggle(b: ServiceBackend, ret: StateReturn, name: string, enable: boolean | undefined, started: Started, test: boolean, result?: boolean) {
  if (enable === true) Object.assign(ret, await enableService(b, name, started, test, result));
  else if (enable === false) Object.assign(ret, await disableService(b, name, started, test, result));
}

/** service.running and service.dead: one flow, as in Salt, with the words and direction swapped. */
function runningOrDead(wantRunning: boolean, options: BackendOptions) {
  return async (a: Record<string, unknown>, ctx: StateContext): Promise<StateReturn> => {
    const name = String(a.name);
    const ret: StateReturn = { name, changes: {}, result: true, comment: '' };
    const b = serviceBackend(options, ctx.cmd);
    if (b.offline) return { ...ret, comment: OFFLINE };
    if (!(await b.available(name))) {
      if (ctx.test) return { ...ret, result: null, comment: notPresent(name, wantRunning ? 'started' : 'stopped') };
      return { ...ret, result: !wantRunning, comment: notAvailable(name) };
    }
    const enable = enableArg(a);
    const before = await b.status(name);
    const beforeEnabled = await b.enabled(name);
    ret.old_state = { name, running: before, enabled: beforeEnabled };
    if (before === wantRunning) {
      ret.comment = wantRunning ? `The service ${name} is already running` : `The service ${name} is already dead`;
      if ((enable === true && !beforeEnabled) || (enable === false && beforeEnabled)) await toggle(b, ret, name, enable, null, ctx.test);
      return ret;
    }
    if (ctx.test) return { ...ret, result: null, comment: wantRunning ? `Service ${name} is set to start` : `Service ${name} is set to be killed` };
    const r = await b.act(name, wantRunning ? 'start' : 'stop', asBool(a.no_block));
    if (!r.ok) {
      ret.result = false;
      // systemd's start raises with systemctl's message (Salt stops there); a failed stop is only False
      if (wantRunning && r.err) return { ...ret, comment: r.err };
      ret.comment = wantRunning ? `Service ${name} failed to start` : `Service ${name} failed to die`;
      await toggle(b, ret, name, enable, !wantRunning, false, false);
      return ret;
    }
    const after = await b.status(name);
    const afterEnabled = await b.enabled(name);
    if (beforeEnabled !== afterEnabled || before !== after) ret.changes[name] = after;
    const reached = after === wantRunning;
    ret.result = reached;
    ret.comment = wantRunning
      ? after
        ? `Started service ${name}`
        : `Service ${name} failed to start`
      : after
        ? `Service ${name} failed to die`
        : `Service ${name} was killed`;
    await toggle(b, ret, name, enable, after, false, reached);
    ret.new_state = { name, running: after, enabled: await b.enabled(name) };
    return ret;
  };
}

function enabledOrDisabled(enable: boolean, options: BackendOptions) {
  return async (a: Record<string, unknown>, ctx: StateContext): Promise<StateReturn> => {
    const name = String(a.name);
    const b = serviceBackend(options, ctx.cmd);
    const ret: StateReturn = { name, changes: {}, result: true, comment: '' };
    await toggle(b, ret, name, enable, null, ctx.test);
    if (enable && ctx.test && ret.comment === notAvailable(name)) return { ...ret, result: null, comment: notPresent(name, 'enabled') };
    return ret;
  };
}

const PAST: Record<string, string> = { stop: 'stopped', start: 'started', restart: 'restarted', reload: 'reloaded', 'force-reload': 'forcefully reloaded' };

/** Salt's service.mod_watch: restart (or reload, or start) a running service, stop a dead one. */
function modWatch(options: BackendOptions) {
  return async (a: Record<string, unknown>, ctx: StateContext): Promise<StateReturn> => {
    const name = String(a.name);
    const sfun = String(a.sfun);
    const b = serviceBackend(options, ctx.cmd);
    const ret: StateReturn = { name, changes: {}, result: true, comment: '' };
    let verb: string;
    if (sfun === 'dead') {
      if (!(await b.status(name))) return { ...ret, comment: 'Service is already stopped' };
      verb = 'stop';
    } else if (sfun === 'running') {
      if (!(await b.status(name))) verb = 'start';
      else if (asBool(a.reload)) verb = asBool(a.force) ? 'force-reload' : 'reload';
      else verb = 'restart';
    } else {
      return { ...ret, result: false, comment: `Unable to trigger watch for service.${sfun}` };
    }
    const past = PAST[verb]!;
    if (ctx.test) return { ...ret, result: null, comment: `Service is set to be ${past}` };
    if (verb === 'start') await b.act(name, 'stop');
    const r = await b.act(name, verb, asBool(a.no_block));
    if (!r.ok && r.err && verb !== 'stop') return { ...ret, result: false, comment: r.err };
    return {
      ...ret,
      changes: { [name]: r.ok },
      result: r.ok,
      comment: r.ok ? `Service ${past}` : `Failed to ${verb === 'force-reload' ? 'forcefully reload' : verb} the service`,
    };
  };
}

export type ServiceModuleOptions = BackendOptions;

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

/**
 * Salt's `service` states: over systemctl where systemd is PID 1, else over Debian's SysV init
 * (debian_service), with systemd's offline mode where systemctl is installed but not running.
 */
export function serviceModule(options: ServiceModuleOptions = {}): StateModule {
  return {
    name: 'service',
    available: (): Availability => serviceHostSupport(options),
    functions: {
      running: { args, run: runningOrDead(true, options) },
      dead: { args, run: runningOrDead(false, options) },
      enabled: { args, run: enabledOrDisabled(true, options) },
      disabled: { args, run: enabledOrDisabled(false, options) },
      masked: { args: maskArgs, run: maskFn(true, options.root) },
      unmasked: { args: maskArgs, run: maskFn(false, options.root) },
    },
    modWatch: modWatch(options),
  };
}
