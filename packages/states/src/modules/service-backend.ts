import { existsSync } from 'node:fs';
import type { CommandRunner } from '@brine/core';
import { systemctl, sysvAllServices, sysvDisable, sysvEnable, sysvEnabledServices, sysvPresent, sysvService, unitStatus, type SysvHost } from '@brine/exec';
import { which } from '../util/which.js';

/** What an action answered: whether it worked, and the error text where the init system gave one. */
export interface ActionResult {
  ok: boolean;
  err?: string;
}

/**
 * The service functions Salt's service states call (`service.available`, `status`, `enabled`,
 * ...). Salt picks them per host: systemd_service where systemd is PID 1; on Debian without a
 * running systemd, debian_service (and when systemctl is installed anyway, systemd's `offline`
 * flag, which turns service.running/dead into no-ops).
 */
export interface ServiceBackend {
  offline: boolean;
  available(name: string): Promise<boolean>;
  status(name: string): Promise<boolean>;
  enabled(name: string): Promise<boolean>;
  disabled(name: string): Promise<boolean>;
  enable(name: string): Promise<ActionResult>;
  disable(name: string): Promise<boolean>;
  /** start, stop, restart, reload, force-reload */
  act(name: string, verb: string, noBlock?: boolean): Promise<ActionResult>;
}

export interface BackendOptions {
  /** Whether systemd is the running init; default: /run/systemd/system exists. */
  systemdRunning?: () => boolean;
  /** Whether systemd is installed but not running (Salt's offline mode); default: systemctl found and not running. */
  offline?: () => boolean;
  /** Another root for the files read (init scripts, rc links, unit masks). */
  root?: string;
}

export const systemdRunning = (o: BackendOptions) => (o.systemdRunning ?? (() => existsSync('/run/systemd/system')))();
const offline = (o: BackendOptions) => (o.offline ?? (() => !systemdRunning(o) && which('systemctl') !== undefined))();

function systemdBackend(cmd: CommandRunner): ServiceBackend {
  const enabled = async (name: string) => (await unitStatus(cmd, name)).enabled;
  return {
    offline: false,
    available: async (name) => (await unitStatus(cmd, name)).loaded,
    status: async (name) => (await unitStatus(cmd, name)).active,
    enabled,
    disabled: async (name) => !(await enabled(name)),
    enable: async (name) => systemctl(cmd, 'enable', name),
    disable: async (name) => (await systemctl(cmd, 'disable', name)).ok,
    act: async (name, verb, noBlock) => systemctl(cmd, verb, name, noBlock),
  };
}

function sysvBackend(h: SysvHost, isOffline: boolean): ServiceBackend {
  const enabled = async (name: string) => (await sysvEnabledServices(h)).includes(name);
  return {
    offline: isOffline,
    available: async (name) => (await sysvAllServices(h)).includes(name),
    status: async (name) => sysvService(h, name, 'status'),
    enabled,
    disabled: async (name) => (await sysvAllServices(h)).includes(name) && !(await enabled(name)),
    enable: async (name) => ({ ok: await sysvEnable(h, name) }),
    disable: async (name) => sysvDisable(h, name),
    act: async (name, verb) => ({ ok: await sysvService(h, name, verb) }),
  };
}

/** The backend for this host, or why there is none. */
export function serviceBackend(o: BackendOptions, cmd: CommandRunner): ServiceBackend {
  if (systemdRunning(o)) return systemdBackend(cmd);
  return sysvBackend({ cmd, root: o.root }, offline(o));
}

/** Whether the service states can work here, and why not. */
export function serviceHostSupport(o: BackendOptions): { available: boolean; reason?: string } {
  if (systemdRunning(o)) return which('systemctl') ? { available: true } : { available: false, reason: 'systemctl not found' };
  if (sysvPresent(o.root)) return { available: true };
  return { available: false, reason: 'neither a running systemd (/run/systemd/system) nor SysV init scripts (/etc/init.d)' };
}
