import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Grains } from '../types.js';
import { linuxOsGrains, parseOsRelease } from './os-grains.js';
import { hostOutput as output, probeOutput } from './probe-cache.js';
import { which } from './which.js';

/**
 * The Salt release whose behaviour Brine is checked against. Formulas branch on it
 * (`grains.saltversioninfo >= [2018, 3]`), so a Brine minion answers as that Salt would.
 */
export const SALT_COMPAT_VERSION = '3007.10';

function osRelease(): Record<string, string> {
  // /usr/lib/os-release is the vendor's copy, for hosts without /etc/os-release
  for (const file of ['/etc/os-release', '/usr/lib/os-release']) {
    try {
      return parseOsRelease(readFileSync(file, 'utf8'));
    } catch {
      // try the next one
    }
  }
  return {};
}

/** Salt's server_id: the minion id's SHA-256 modulo 2^31, a stable integer per minion. */
export function serverId(id: string): number {
  return Number(BigInt(`0x${createHash('sha256').update(id).digest('hex')}`) % 2n ** 31n);
}

/** `systemctl --version` → Salt's systemd grain. */
export function parseSystemdVersion(text: string | undefined): { version: string; features: string } {
  const lines = (text ?? '').split('\n');
  if (text !== undefined && lines[0]!.startsWith('systemd ') && lines.length > 1) return { version: lines[0]!.split(/\s+/)[1]!, features: lines[1]! };
  return { version: 'UNDEFINED', features: '' };
}

/** `python3 --version` → sys.version_info as a list, as Salt's pythonversion grain. */
export function parsePythonVersion(text: string | undefined): (number | string)[] | undefined {
  const m = /Python (\d+)\.(\d+)\.(\d+)(?:(a|b|rc)(\d+))?/.exec(text ?? '');
  if (!m) return undefined;
  const level = m[4] === undefined ? 'final' : { a: 'alpha', b: 'beta', rc: 'candidate' }[m[4]]!;
  return [Number(m[1]), Number(m[2]), Number(m[3]), level, m[5] === undefined ? 0 : Number(m[5])];
}

/** Salt's osarch: the package architecture (dpkg's on Debian, rpm's on RedHat and Suse). */
export function packageArch(family: string, machine: string): string {
  if (family === 'Debian')
    return (
      {
        x86_64: 'amd64',
        aarch64: 'arm64',
        armv7l: 'armhf',
        armv6l: 'armel',
        i686: 'i386',
        i386: 'i386',
        ppc64le: 'ppc64el',
        s390x: 's390x',
        riscv64: 'riscv64',
      }[machine] ?? machine
    );
  return machine;
}

/** Salt's init grain: systemd when booted with it, else what pid 1 is. */
function initSystem(): string {
  if (existsSync('/run/systemd/system')) return 'systemd';
  let cmdline: string[];
  try {
    cmdline = readFileSync('/proc/1/cmdline', 'utf8').split('\0').join(' ').split(/\s+/).filter(Boolean);
  } catch {
    return 'unknown';
  }
  const bin = cmdline[0] ? which(cmdline[0]) : null;
  if (bin?.endsWith('bin/init')) {
    try {
      const text = readFileSync(bin).toString('latin1').toLowerCase();
      const at = ['upstart', 'sysvinit', 'systemd'].map((name) => [name, text.indexOf(name)] as const).filter(([, i]) => i >= 0);
      at.sort((a, b) => a[1] - b[1]);
      return at[0]?.[0] ?? 'unknown';
    } catch {
      return 'unknown';
    }
  }
  for (const name of ['supervisord', 'dumb-init', 'tini']) {
    // which() answers the name or a path ending in it: PATH is searched only when pid 1's command line has one
    if (!cmdline.some((arg) => arg === name || arg.endsWith(`/${name}`))) continue;
    const p = which(name);
    if (p && cmdline.includes(p)) return name;
  }
  if (cmdline.length === 1 && cmdline[0] === 'runit') return 'runit';
  if (cmdline.includes('/sbin/my_init')) return 'runit';
  return 'unknown';
}

/** Addresses: all of them (ipv4, ipv6) and per interface (Salt's ip4_interfaces, ip6_interfaces, ip_interfaces, hwaddr_interfaces). */
function interfaceGrains(): Grains {
  const ip4: Record<string, string[]> = {};
  const ip6: Record<string, string[]> = {};
  const hw: Record<string, string> = {};
  let names: string[] = [];
  try {
    names = readdirSync('/sys/class/net');
  } catch {
    // not Linux, or no sysfs: the interfaces with addresses still count
  }
  const ifaces = os.networkInterfaces();
  for (const name of new Set([...names, ...Object.keys(ifaces)])) {
    ip4[name] = [];
    ip6[name] = [];
    for (const a of ifaces[name] ?? []) {
      (a.family === 'IPv4' ? ip4 : ip6)[name]!.push(a.address);
      if (a.mac) hw[name] = a.mac;
    }
    if (hw[name] === undefined) {
      try {
        hw[name] = readFileSync(`/sys/class/net/${name}/address`, 'utf8').trim();
      } catch {
        // an interface without a hardware address
      }
    }
  }
  const ipAll = Object.fromEntries(Object.keys(ip4).map((n) => [n, [...ip4[n]!, ...ip6[n]!]]));
  const all = (by: Record<string, string[]>) => [...new Set(Object.values(by).flat())].sort();
  return { ipv4: all(ip4), ipv6: all(ip6), ip4_interfaces: ip4, ip6_interfaces: ip6, ip_interfaces: ipAll, hwaddr_interfaces: hw };
}

function machineId(): string | undefined {
  for (const file of ['/etc/machine-id', '/var/lib/dbus/machine-id']) {
    try {
      return readFileSync(file, 'utf8').trim();
    } catch {
      // try the next one
    }
  }
  return undefined;
}

function swapTotalMb(): number | undefined {
  try {
    const m = /^SwapTotal:\s+(\d+) kB/m.exec(readFileSync('/proc/meminfo', 'utf8'));
    return m ? Math.floor(Number(m[1]) / 1024) : undefined;
  } catch {
    return undefined;
  }
}

/** Grains that only a Linux host has (Salt's os_data on Linux). */
function linuxGrains(): Grains {
  const g: Grains = { ...linuxOsGrains(osRelease()) };
  if (which('selinuxenabled')) {
    const enforced = output('getenforce', []);
    g.selinux = { enabled: output('selinuxenabled', []) !== undefined, ...(enforced !== undefined ? { enforced: enforced.trim() } : {}) };
  }
  const systemctl = which('systemctl');
  if (systemctl && which('localectl')) g.systemd = parseSystemdVersion(probeOutput(systemctl, ['--version']));
  g.init = initSystem();
  const mid = machineId();
  if (mid) g.machine_id = mid;
  const swap = swapTotalMb();
  if (swap !== undefined) g.swap_total = swap;
  return g;
}

function groupName(gid: number): string {
  try {
    for (const line of readFileSync('/etc/group', 'utf8').split('\n')) {
      const [name, , id] = line.split(':');
      if (id !== undefined && Number(id) === gid) return name!;
    }
  } catch {
    // no group database
  }
  return '';
}

/**
 * The grains a Salt user expects to target on, collected from this host (the minion's and
 * `brine local`'s). `custom` wins over anything collected, except `id`; `brineversion` is
 * there when a version is given.
 */
export function collectGrains(id: string, custom: Grains = {}, version?: string): Grains {
  const kernel = os.type();
  const osGrains: Grains =
    kernel === 'Linux'
      ? linuxGrains()
      : { os: kernel === 'Darwin' ? 'MacOS' : kernel, os_family: kernel === 'Darwin' ? 'MacOS' : kernel, osrelease: os.release() };
  const fqdn = os.hostname();
  const short = fqdn.split('.')[0];
  const cpus = os.cpus();
  // Brine runs no Python; formulas read pythonversion to pick python package names, which are the
  // system interpreter's (a pyenv shim first on PATH would also cost 50 ms per start)
  const python3 = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : which('python3');
  const python = python3 ? parsePythonVersion(probeOutput(python3, ['--version'])) : undefined;
  const grains: Grains = {
    id,
    ...osGrains,
    kernel,
    kernelrelease: os.release(),
    kernelversion: os.version(),
    osarch: packageArch(String(osGrains.os_family), os.machine()),
    cpuarch: os.machine(),
    // `host` is Salt's name for it; `hostname` stays for targets written against earlier minions
    host: short,
    hostname: short,
    nodename: fqdn,
    fqdn,
    domain: fqdn.includes('.') ? fqdn.slice(fqdn.indexOf('.') + 1) : '',
    num_cpus: cpus.length,
    cpu_model: cpus[0]?.model ?? '',
    mem_total: Math.round(os.totalmem() / 1024 / 1024),
    ...interfaceGrains(),
    server_id: serverId(id),
    saltversion: SALT_COMPAT_VERSION,
    saltversioninfo: SALT_COMPAT_VERSION.split('.').map(Number),
    ...(version !== undefined ? { brineversion: version } : {}),
    nodeversion: process.versions.node,
    ...(python !== undefined ? { pythonversion: python } : {}),
    path: process.env.PATH ?? '',
    systempath: (process.env.PATH ?? '').split(path.delimiter),
    shell: process.env.SHELL ?? '/bin/sh',
    username: os.userInfo().username,
    groupname: groupName(process.getgid?.() ?? -1),
    uid: process.getuid?.() ?? -1,
    gid: process.getgid?.() ?? -1,
    pid: process.pid,
  };
  for (const [k, v] of Object.entries(custom)) if (k !== 'id') grains[k] = v;
  return grains;
}
