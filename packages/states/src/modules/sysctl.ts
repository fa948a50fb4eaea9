import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { ArgSpec, Availability, CommandRunner, StateContext, StateModule, StateReturn } from '@brine/core';
import { which } from '../util/which.js';

/**
 * Salt's `sysctl.present` on Linux: the running value through `sysctl -n`/`-w` (as Salt's
 * linux_sysctl module), persisted as `name = value` in a config file.
 */

export interface SysctlModuleOptions {
  /** Where the kernel's keys are looked up before a write (default /proc/sys). */
  procSys?: string;
  /** The config file when the state names none (default as Salt: 99-salt.conf under systemd). */
  defaultConfig?: () => string;
}

class SysctlError extends Error {}

/** The keys of a sysctl config file; [] for a missing file (as Salt), null for an unreadable one. */
async function showConfig(config: string): Promise<Record<string, string> | null> {
  if (!existsSync(config)) return {};
  let text: string;
  try {
    text = await readFile(config, 'utf8');
  } catch {
    return null;
  }
  const keys: Record<string, string> = {};
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line.startsWith('#') || !line.includes('=')) continue;
    const i = line.indexOf('=');
    keys[line.slice(0, i).trimEnd()] = line.slice(i + 1).trimStart();
  }
  return keys;
}

/** `sysctl -n NAME` as Salt's cmd.run gives it: stdout and stderr together, trailing newline gone. */
async function current(cmd: CommandRunner, name: string): Promise<string> {
  const r = await cmd.run(['sysctl', '-n', name]);
  return [r.stdout, r.stderr].filter(Boolean).join('').replace(/\n+$/, '');
}

const tabbed = (v: unknown): string => String(v).replace(/\s+/g, '\t');

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

async function assign(cmd: CommandRunner, procSys: string, name: string, value: unknown): Promise<void> {
  const v = String(value);
  const file = `${procSys}/${name.replace(/[./]/g, (c) => (c === '.' ? '/' : '.'))}`;
  if (!existsSync(file)) throw new SysctlError(`sysctl ${name} does not exist`);
  const r = await cmd.run(['sysctl', '-w', `${name}=${v}`]);
  const out = r.stdout.replace(/\n+$/, '');
  const ok = new RegExp(`^${escapeRe(name)}\\s+=\\s+${escapeRe(v)}$`).test(out);
  if (!ok || r.stderr.includes('Invalid argument')) {
    throw new SysctlError(`sysctl -w failed: ${r.retcode !== 0 && r.stderr ? r.stderr.replace(/\n+$/, '') : out}`);
  }
}

/** Salt's sysctl.persist: 'Updated' or 'Already set'. */
async function persist(cmd: CommandRunner, procSys: string, name: string, value: unknown, config: string): Promise<string> {
  if (!existsSync(config)) {
    await mkdir(dirname(config), { recursive: true });
    try {
      await writeFile(config, '#\n# Kernel sysctl configuration\n#\n');
    } catch {
      throw new SysctlError(`Could not write to file: ${config}`);
    }
  }
  let lines: string[];
  try {
    lines = (await readFile(config, 'utf8')).split(/(?<=\n)/);
  } catch {
    throw new SysctlError(`Could not read from file: ${config}`);
  }
  const out: string[] = [];
  let edited = false;
  for (const line of lines) {
    const i = line.indexOf('=');
    if (i < 0 || line.slice(0, i).trim().startsWith('#')) {
      out.push(line);
      continue;
    }
    if (line.slice(0, i).trim() !== name) {
      out.push(line);
      continue;
    }
    if (tabbed(line.slice(i + 1).trim()) === tabbed(value)) {
      if (tabbed(await current(cmd, name)) !== tabbed(value)) {
        await assign(cmd, procSys, name, value);
        return 'Updated';
      }
      return 'Already set';
    }
    out.push(`${name} = ${String(value)}\n`);
    edited = true;
  }
  if (!edited) out.push(`${name} = ${String(value)}\n`);
  try {
    await writeFile(config, out.join(''));
  } catch {
    throw new SysctlError(`Could not write to file: ${config}`);
  }
  await assign(cmd, procSys, name, value);
  return 'Updated';
}

async function testPresent(ctx: StateContext, name: string, value: unknown, config: string): Promise<StateReturn> {
  const ret: StateReturn = { name, result: null, changes: {}, comment: '' };
  const configured = await showConfig(config);
  if (configured === null) {
    ret.comment = `Sysctl option ${name} might be changed, we failed to check config file at ${config}. The file is either unreadable, or missing.`;
    return ret;
  }
  const now = await current(ctx.cmd, name);
  const inConfig = Object.hasOwn(configured, name);
  const words = (s: string) => s.split(/\s+/).filter(Boolean).join(' ');
  if (now) {
    if (inConfig) {
      if (words(String(value)) === words(now)) {
        return { ...ret, result: true, comment: `Sysctl value ${name} = ${String(value)} is already set` };
      }
    } else {
      const squeeze = (s: string) => s.replace(/ +|\t+/g, ' ');
      ret.comment =
        squeeze(now) !== squeeze(String(value))
          ? `Sysctl option ${name} set to be changed to ${String(value)}`
          : `Sysctl value is currently set on the running system but not in a config file. Sysctl option ${name} set to be changed to ${String(value)} in config file.`;
      return ret;
    }
  } else if (inConfig) {
    ret.comment = `Sysctl value ${name} is present in configuration file but is not present in the running config. The value ${name} is set to be changed to ${String(value)}`;
    return ret;
  }
  ret.comment = `Sysctl option ${name} would be changed to ${String(value)}`;
  return ret;
}

const presentArgs: Record<string, ArgSpec> = {
  value: { type: ['string', 'number', 'boolean'], required: true },
  config: { type: 'string' },
};

function saltDefaultConfig(): string {
  return existsSync('/run/systemd/system') ? '/etc/sysctl.d/99-salt.conf' : '/etc/sysctl.conf';
}

export function sysctlModule(options: SysctlModuleOptions = {}): StateModule {
  const procSys = options.procSys ?? '/proc/sys';
  const defaultConfig = options.defaultConfig ?? saltDefaultConfig;
  return {
    name: 'sysctl',
    available(): Availability {
      if (process.platform !== 'linux') return { available: false, reason: 'sysctl states work on Linux only' };
      if (!which('sysctl')) return { available: false, reason: 'sysctl not found' };
      return { available: true };
    },
    functions: {
      present: {
        args: presentArgs,
        async run(a, ctx) {
          const name = String(a.name);
          const value = a.value;
          const config = typeof a.config === 'string' ? a.config : defaultConfig();
          const state = { name, value: String(value), config };
          if (ctx.test) return { ...(await testPresent(ctx, name, value, config)), old_state: undefined };
          const oldValue = await current(ctx.cmd, name);
          try {
            const update = await persist(ctx.cmd, procSys, name, value, config);
            const ret: StateReturn = { name, result: true, changes: {}, comment: '', old_state: { ...state, value: oldValue }, new_state: state };
            if (update === 'Updated') {
              ret.changes = { [name]: value };
              ret.comment = `Updated sysctl value ${name} = ${String(value)}`;
            } else {
              ret.comment = `Sysctl value ${name} = ${String(value)} is already set`;
            }
            return ret;
          } catch (e) {
            if (!(e instanceof SysctlError)) throw e;
            return { name, result: false, changes: {}, comment: `Failed to set ${name} to ${String(value)}: ${e.message}` };
          }
        },
      },
    },
  };
}
