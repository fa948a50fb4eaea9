import { readFileSync } from 'node:fs';
import { cpus, hostname, networkInterfaces, release, totalmem, type as osType } from 'node:os';
import { parse } from 'yaml';
import { coreErrors, type Grains } from '@brine/core';

function osRelease(): Record<string, string> {
  try {
    const out: Record<string, string> = {};
    for (const line of readFileSync('/etc/os-release', 'utf8').split('\n')) {
      const m = /^([A-Z_]+)=(.*)$/.exec(line);
      if (m) out[m[1]!] = m[2]!.replace(/^"|"$/g, '');
    }
    return out;
  } catch {
    return {};
  }
}

const FAMILY: Record<string, string> = {
  debian: 'Debian', ubuntu: 'Debian', raspbian: 'Debian', linuxmint: 'Debian',
  rhel: 'RedHat', centos: 'RedHat', fedora: 'RedHat', rocky: 'RedHat', almalinux: 'RedHat', amzn: 'RedHat',
  alpine: 'Alpine', arch: 'Arch', opensuse: 'Suse', sles: 'Suse',
};

/** The grains `brine local` sees: what this host says about itself, then `--grains FILE` on top. */
export function localGrains(id: string, grainsFile?: string): Grains {
  const rel = osRelease();
  const osId = (rel.ID ?? osType()).toLowerCase();
  const ipv4: string[] = [];
  const ipv6: string[] = [];
  for (const addrs of Object.values(networkInterfaces())) {
    for (const a of addrs ?? []) (a.family === 'IPv4' ? ipv4 : ipv6).push(a.address);
  }
  const grains: Grains = {
    id,
    host: hostname().split('.')[0],
    fqdn: hostname(),
    nodename: hostname(),
    kernel: osType(),
    kernelrelease: release(),
    os: rel.NAME?.split(' ')[0] ?? osType(),
    os_family: FAMILY[osId] ?? (rel.ID_LIKE ? FAMILY[rel.ID_LIKE.split(' ')[0]!.toLowerCase()] : undefined) ?? osType(),
    osrelease: rel.VERSION_ID ?? '',
    oscodename: rel.VERSION_CODENAME ?? '',
    num_cpus: cpus().length,
    mem_total: Math.round(totalmem() / 1024 / 1024),
    ipv4,
    ipv6,
  };
  if (grainsFile) {
    let extra: unknown;
    try {
      extra = parse(readFileSync(grainsFile, 'utf8'), { version: '1.1' });
    } catch (e) {
      throw coreErrors.make('BRINE_ERR_CORE_BAD_INPUT', { detail: `cannot read grains file ${grainsFile}: ${(e as Error).message}` });
    }
    if (extra !== null && (typeof extra !== 'object' || Array.isArray(extra))) {
      throw coreErrors.make('BRINE_ERR_CORE_BAD_INPUT', { detail: `grains file ${grainsFile} must hold a dictionary` });
    }
    Object.assign(grains, extra ?? {});
  }
  grains.id = id;
  return grains;
}
