import { existsSync } from 'node:fs';
import { readlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { ArgSpec, Availability, CommandResult, StateContext, StateModule, StateReturn } from '@brine/core';
import { which } from '../util/which.js';

/** Salt's `alternatives` states through Debian's update-alternatives. */

export interface AlternativesModuleOptions {
  /** The alternatives directory (default /etc/alternatives); passed as --altdir when set. */
  altdir?: string;
  /** dpkg's administrative directory; passed as --admindir when set. */
  admindir?: string;
}

interface Alt {
  run(ctx: StateContext, ...args: string[]): Promise<CommandResult>;
  /** What `--display NAME` says, or its error when it fails (Salt's alternatives.display). */
  display(ctx: StateContext, name: string): Promise<string>;
  /** Whether PATH is one of NAME's alternatives. */
  exists(ctx: StateContext, name: string, path: string): Promise<boolean>;
  /** Where the NAME link points, or false. */
  current(name: string): Promise<string | false>;
}

function alt(options: AlternativesModuleOptions): Alt {
  const dir = options.altdir ?? '/etc/alternatives';
  const flags = [...(options.altdir ? ['--altdir', options.altdir] : []), ...(options.admindir ? ['--admindir', options.admindir] : [])];
  const self: Alt = {
    run: (ctx, ...args) => ctx.cmd.run(['update-alternatives', ...flags, ...args]),
    async display(ctx, name) {
      const r = await self.run(ctx, '--display', name);
      return (r.retcode > 0 && r.stderr !== '' ? r.stderr : r.stdout).replace(/\n+$/, '');
    },
    async exists(ctx, name, path) {
      const r = await self.run(ctx, '--display', name);
      if (r.retcode > 0 && r.stderr !== '') return false;
      return r.stdout.split('\n').some((l) => l.startsWith(path));
    },
    async current(name) {
      try {
        return await readlink(join(dir, name));
      } catch {
        return false;
      }
    },
  };
  return self;
}

const out = (r: CommandResult, failOnAny: boolean): string => (r.retcode > 0 && (failOnAny || r.stderr !== '') ? r.stderr : r.stdout).replace(/\n+$/, '');

async function install(u: Alt, a: Record<string, unknown>, ctx: StateContext): Promise<StateReturn> {
  const name = String(a.name);
  const link = String(a.link);
  const path = String(a.path);
  const priority = a.priority;
  const ret: StateReturn = { name, link, path, priority, result: true, changes: {}, comment: '' };
  const before = await u.current(name);
  ret.old_state = { name, path: before || null };
  if (await u.exists(ctx, name, path)) {
    ret.comment = `Alternative ${path} for ${name} is already registered`;
    ret.new_state = ret.old_state;
    return ret;
  }
  if (ctx.test) {
    ret.comment = `Alternative will be set for ${name} to ${path} with priority ${String(priority)}`;
    ret.result = null;
    return ret;
  }
  const r = out(await u.run(ctx, '--install', link, name, path, String(priority)), false);
  if (!(await u.exists(ctx, name, path))) {
    ret.result = false;
    ret.comment = `Alternative for ${name} not installed: ${r}`;
    return ret;
  }
  const now = await u.current(name);
  ret.comment =
    now === path
      ? `Alternative for ${name} set to path ${path} with priority ${String(priority)}`
      : `Alternative ${path} for ${name} registered with priority ${String(priority)} and not set to default`;
  ret.changes = { name, link, path, priority };
  ret.new_state = { name, path: now || null };
  return ret;
}

async function remove(u: Alt, a: Record<string, unknown>, ctx: StateContext): Promise<StateReturn> {
  const name = String(a.name);
  const path = String(a.path);
  const ret: StateReturn = { name, path, result: true, changes: {}, comment: '' };
  if (await u.exists(ctx, name, path)) {
    if (ctx.test) return { ...ret, result: null, comment: `Alternative for ${name} will be removed` };
    await u.run(ctx, '--remove', name, path);
    const now = await u.current(name);
    if (now) return { ...ret, comment: `Alternative for ${name} removed. Falling back to path ${now}`, changes: { path: now } };
    return { ...ret, comment: `Alternative for ${name} removed` };
  }
  const now = await u.current(name);
  if (now) return { ...ret, comment: `Alternative for ${name} is set to it's default path ${now}` };
  return { ...ret, result: false, comment: `Alternative for ${name} doesn't exist` };
}

async function auto(u: Alt, a: Record<string, unknown>, ctx: StateContext): Promise<StateReturn> {
  const name = String(a.name);
  const ret: StateReturn = { name, result: true, changes: {}, comment: '' };
  const first = (await u.display(ctx, name)).split('\n')[0] ?? '';
  if (first.endsWith(' auto mode')) return { ...ret, comment: `${name} already in auto mode` };
  if (ctx.test) return { ...ret, result: null, comment: `${name} will be put in auto mode` };
  ret.changes = { result: out(await u.run(ctx, '--auto', name), true) };
  return ret;
}

async function set(u: Alt, a: Record<string, unknown>, ctx: StateContext): Promise<StateReturn> {
  const name = String(a.name);
  const path = String(a.path);
  const ret: StateReturn = { name, path, result: true, changes: {}, comment: '' };
  const before = await u.current(name);
  ret.old_state = { name, path: before || null };
  if (before === path) {
    ret.new_state = ret.old_state;
    return { ...ret, comment: `Alternative for ${name} already set to ${path}` };
  }
  const known = (await u.display(ctx, name)).split('\n').some((l) => l.startsWith(path));
  if (!known) return { ...ret, result: false, comment: `Alternative ${path} for ${name} doesn't exist` };
  if (ctx.test) return { ...ret, result: null, comment: `Alternative for ${name} will be set to path ${path}` };
  await u.run(ctx, '--set', name, path);
  const now = await u.current(name);
  ret.new_state = { name, path: now || null };
  if (now === path) return { ...ret, comment: `Alternative for ${name} set to path ${now}`, changes: { path: now } };
  return { ...ret, comment: `Alternative for ${name} not updated` };
}

const str: ArgSpec = { type: 'string', required: true };

export function alternativesModule(options: AlternativesModuleOptions = {}): StateModule {
  const u = alt(options);
  return {
    name: 'alternatives',
    available(): Availability {
      if (!which('update-alternatives')) return { available: false, reason: 'update-alternatives not found' };
      if (!existsSync(options.altdir ?? '/etc/alternatives')) return { available: false, reason: '/etc/alternatives dir not found' };
      return { available: true };
    },
    functions: {
      install: { args: { link: str, path: str, priority: { type: ['number', 'string'], required: true } }, run: (a, ctx) => install(u, a, ctx) },
      remove: { args: { path: str }, run: (a, ctx) => remove(u, a, ctx) },
      auto: { args: {}, run: (a, ctx) => auto(u, a, ctx) },
      set: { args: { path: str }, run: (a, ctx) => set(u, a, ctx) },
    },
  };
}
