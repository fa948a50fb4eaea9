import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { CommandRunner } from '@brine/core';

/**
 * Debian's SysV init as Salt's debian_service module sees it: scripts in /etc/init.d, boot links
 * in /etc/rc<runlevel>.d and /etc/rcS.d, actions through the `service` command. Salt uses it on
 * Debian whenever systemd is not PID 1 (containers, image builds), even with systemd installed.
 * `root` relocates the file reads (tests bind a private tree over /etc in a mount namespace).
 */
export interface SysvHost {
  cmd: CommandRunner;
  root?: string;
}

const etc = (h: SysvHost, ...parts: string[]) => join(h.root ?? '/', 'etc', ...parts);

function list(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** Whether this host has SysV init scripts to manage. */
export function sysvPresent(root?: string): boolean {
  return existsSync(join(root ?? '/', 'etc/init.d'));
}

/** The current runlevel; `runlevel` says "unknown" (or is missing) in containers: Debian's default 2. */
export async function sysvRunlevel(h: SysvHost): Promise<string> {
  const r = await h.cmd.run(['runlevel']).catch(() => undefined);
  const out = r?.stdout.trim() ?? '';
  if (!r || out === '' || out.includes('unknown')) return '2';
  return out.split(/\s+/)[1] ?? '2';
}

/**
 * The services started at boot: the names of the S links of rcS.d and the runlevel's rc dir, as
 * Salt reads them (the text after the link name's last run of digits).
 */
export async function sysvEnabledServices(h: SysvHost): Promise<string[]> {
  const rl = await sysvRunlevel(h);
  const out = new Set<string>();
  for (const d of new Set(['S', rl])) {
    for (const n of list(etc(h, `rc${d}.d`))) if (n.startsWith('S')) out.add(n.split(/\d+/).pop() ?? n);
  }
  return [...out].sort();
}

/** Every init script (README left out), plus the services started at boot. */
export async function sysvAllServices(h: SysvHost): Promise<string[]> {
  const out = new Set(list(etc(h, 'init.d')).filter((n) => !n.startsWith('.') && n !== 'README'));
  for (const n of await sysvEnabledServices(h)) out.add(n);
  return [...out].sort();
}

/** `service NAME ACTION`: whether it exited 0. */
export async function sysvService(h: SysvHost, name: string, action: string): Promise<boolean> {
  return (await h.cmd.run(['service', name, action])).retcode === 0;
}

/** Boot links on: Salt runs `insserv NAME && update-rc.d NAME enable` (it fails where insserv is missing). */
export async function sysvEnable(h: SysvHost, name: string): Promise<boolean> {
  const q = `'${name.replace(/'/g, `'\\''`)}'`;
  return (await h.cmd.run(['sh', '-c', `insserv ${q} && update-rc.d ${q} enable`])).retcode === 0;
}

/** Boot links off: `update-rc.d NAME disable`. */
export async function sysvDisable(h: SysvHost, name: string): Promise<boolean> {
  return (await h.cmd.run(['update-rc.d', name, 'disable'])).retcode === 0;
}
