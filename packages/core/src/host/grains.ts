import { readFileSync } from 'node:fs';
import os from 'node:os';
import type { Grains } from '../types.js';

/** os_family by os-release ID (or one of its ID_LIKE words). */
const FAMILY: Record<string, string> = {
  debian: 'Debian',
  ubuntu: 'Debian',
  raspbian: 'Debian',
  linuxmint: 'Debian',
  rhel: 'RedHat',
  fedora: 'RedHat',
  centos: 'RedHat',
  rocky: 'RedHat',
  almalinux: 'RedHat',
  amzn: 'RedHat',
  suse: 'Suse',
  opensuse: 'Suse',
  sles: 'Suse',
  arch: 'Arch',
  alpine: 'Alpine',
  gentoo: 'Gentoo',
};

/** The `os` grain by os-release ID, spelled as Salt spells it. */
const OS_NAME: Record<string, string> = {
  debian: 'Debian',
  ubuntu: 'Ubuntu',
  rhel: 'RedHat',
  centos: 'CentOS',
  fedora: 'Fedora',
  rocky: 'Rocky',
  almalinux: 'AlmaLinux',
  alpine: 'Alpine',
  arch: 'Arch',
  opensuse: 'openSUSE',
};

function osRelease(): Record<string, string> {
  const out: Record<string, string> = {};
  // /usr/lib/os-release is the vendor's copy, for hosts without /etc/os-release
  for (const file of ['/etc/os-release', '/usr/lib/os-release']) {
    try {
      for (const line of readFileSync(file, 'utf8').split('\n')) {
        const m = /^([A-Z_]+)=(.*)$/.exec(line.trim());
        if (m) out[m[1]!] = m[2]!.replace(/^["']|["']$/g, '');
      }
      return out;
    } catch {
      // try the next one
    }
  }
  return out;
}

/**
 * The grains a Salt user expects to target on, collected from this host (the minion's and
 * `brine local`'s). `custom` wins over anything collected, except `id`; `brineversion` is
 * there when a version is given.
 */
export function collectGrains(id: string, custom: Grains = {}, version?: string): Grains {
  const rel = osRelease();
  const kernel = os.type();
  const distroId = (rel.ID ?? '').toLowerCase();
  const like = (rel.ID_LIKE ?? '').toLowerCase().split(/\s+/);
  const osName = kernel === 'Linux' ? (OS_NAME[distroId] ?? rel.NAME ?? 'Linux') : kernel === 'Darwin' ? 'MacOS' : kernel;
  const family = kernel === 'Linux' ? (FAMILY[distroId] ?? like.map((l) => FAMILY[l]).find(Boolean) ?? osName) : osName;
  const ipv4: string[] = [];
  const ipv6: string[] = [];
  for (const addrs of Object.values(os.networkInterfaces())) {
    for (const a of addrs ?? []) (a.family === 'IPv4' ? ipv4 : ipv6).push(a.address);
  }
  const fqdn = os.hostname();
  const short = fqdn.split('.')[0];
  const cpus = os.cpus();
  const grains: Grains = {
    id,
    os: osName,
    os_family: family,
    osfullname: rel.NAME ?? osName,
    osrelease: rel.VERSION_ID ?? os.release(),
    oscodename: rel.VERSION_CODENAME ?? '',
    kernel,
    kernelrelease: os.release(),
    osarch: os.arch(),
    cpuarch: os.machine(),
    // `host` is Salt's name for it; `hostname` stays for targets written against earlier minions
    host: short,
    hostname: short,
    nodename: fqdn,
    fqdn,
    domain: fqdn.includes('.') ? fqdn.slice(fqdn.indexOf('.') + 1) : '',
    ipv4: [...new Set(ipv4)].sort(),
    ipv6: [...new Set(ipv6)].sort(),
    num_cpus: cpus.length,
    cpu_model: cpus[0]?.model ?? '',
    mem_total: Math.round(os.totalmem() / 1024 / 1024),
    ...(version !== undefined ? { brineversion: version } : {}),
    nodeversion: process.versions.node,
    shell: process.env.SHELL ?? '/bin/sh',
    username: os.userInfo().username,
    uid: process.getuid?.() ?? -1,
    gid: process.getgid?.() ?? -1,
    pid: process.pid,
  };
  for (const [k, v] of Object.entries(custom)) if (k !== 'id') grains[k] = v;
  return grains;
}
