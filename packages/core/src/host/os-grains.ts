import type { Grains } from '../types.js';

/**
 * The os grains Salt 3007 derives from os-release on a Linux host without the lsb_release Python
 * module (Debian 12's default, and where Salt reads os-release first): os, os_family, osfullname,
 * osrelease, oscodename, lsb_distrib_*, osrelease_info, osmajorrelease and osfinger. Formulas key
 * their map files on these (`grains.filter_by(..., grain='osfinger')`), so they must be spelled
 * exactly as Salt spells them; test/golden/grains/salt-grains.json holds Salt's answers.
 */

/** First ten letters of a distribution name (spaces out, lower case) → Salt's `os`. */
const OS_BY_SHORT_NAME: Record<string, string> = {
  redhatente: 'RedHat',
  gentoobase: 'Gentoo',
  archarm: 'Arch ARM',
  arch: 'Arch',
  debian: 'Debian',
  raspbian: 'Raspbian',
  fedoraremi: 'Fedora',
  amazonami: 'Amazon',
  alt: 'ALT',
  enterprise: 'OEL',
  oracleserv: 'OEL',
  cloudserve: 'CloudLinux',
  cloudlinux: 'CloudLinux',
  almalinux: 'AlmaLinux',
  scientific: 'ScientificLinux',
  manjaro: 'Manjaro',
  manjarolin: 'Manjaro',
  univention: 'Univention',
  sles: 'SUSE',
  void: 'Void',
  linuxmint: 'Mint',
  neon: 'KDE neon',
  pop: 'Pop',
  rocky: 'Rocky',
  alibabaclo: 'Alinux',
  mendel: 'Mendel',
};

/** os-release (ID, NAME) pairs whose `os` is not derived from the name. */
const OS_BY_ID_AND_NAME: Record<string, string> = {
  'astra\0Astra Linux (Orel)': 'AstraLinuxCE',
  'astra\0Astra Linux (Smolensk)': 'AstraLinuxSE',
  'pop\0Pop!_OS': 'Pop',
};

/** `os` → `os_family`; an os not listed is its own family. */
const FAMILY_BY_OS: Record<string, string> = {
  ...Object.fromEntries(
    [
      'Ubuntu',
      'Mint',
      'Raspbian',
      'Devuan',
      'Kali',
      'Pop',
      'KDE neon',
      'neon',
      'elementary OS',
      'elementary',
      'Trisquel',
      'Univention',
      'Deepin',
      'Cumulus',
      'TurnKey',
      'AstraLinuxCE',
      'AstraLinuxSE',
      'Mendel',
      'OSMC',
      'antiX',
      'Parrot OS',
      'Linaro',
      'GCEL',
      'IDMS',
    ].map((os) => [os, 'Debian']),
  ),
  ...Object.fromEntries(
    [
      'Fedora',
      'CentOS',
      'CentOS Stream',
      'Scientific',
      'ScientificLinux',
      'Amazon',
      'CloudLinux',
      'AlmaLinux',
      'Rocky',
      'OVS',
      'OEL',
      'XCP',
      'XCP-ng',
      'XenServer',
      'RES',
      'Sangoma',
      'VMware Photon OS',
      'ALT',
      'Alinux',
      'Chapeau',
      'Korora',
      'FedBerry',
      'GoOSe',
    ].map((os) => [os, 'RedHat']),
  ),
  ...Object.fromEntries(
    ['SLES', 'SUSE', 'SLED', 'SLES_SAP', 'openSUSE', 'openSUSE Leap', 'openSUSE Tumbleweed', 'SUSE Enterprise Server'].map((os) => [os, 'Suse']),
  ),
  ...Object.fromEntries(['Arch ARM', 'Manjaro', 'Manjaro ARM', 'Antergos', 'EndeavourOS'].map((os) => [os, 'Arch'])),
  Funtoo: 'Gentoo',
  Mandrake: 'Mandriva',
  Slamd64: 'Slackware',
  Bluewhite64: 'Bluewhite',
  VMwareESX: 'VMware',
};

/** Salt's `os` from os-release NAME and ID: the name without "Linux", looked up by its short form. */
export function deriveOs(name: string, id?: string): string {
  const pinned = OS_BY_ID_AND_NAME[`${id}\0${name}`];
  if (pinned) return pinned;
  // an ASCII name (all known ones) is cut by a plain pattern: the Unicode one costs ~0.3 ms to
  // compile in every process, and both match the same on ASCII text
  const distro = (
    /^[\x00-\x7f]*$/.test(name) ? name.replace(/[^A-Za-z0-9_](?:gnu\/)?linux/gi, '') : name.replace(/[^\p{L}\p{N}_](?:gnu\/)?linux/giu, '')
  ).trim();
  return OS_BY_SHORT_NAME[distro.replace(/ /g, '').toLowerCase().slice(0, 10)] ?? distro;
}

/** osrelease_info, osmajorrelease and osfinger from os, osfullname and osrelease. */
export function releaseGrains(osName: string, osfullname: string, osrelease: string): Grains {
  const info: (number | string)[] = osrelease.split('.').map((part) => (/^\d+$/.test(part) ? Number(part) : part));
  const out: Grains = { osrelease_info: info };
  if (typeof info[0] === 'number') out.osmajorrelease = info[0];
  const fingerName = ['Debian', 'FreeBSD', 'OpenBSD', 'NetBSD', 'Mac', 'Raspbian'].includes(osName) ? osName : osfullname;
  out.osfinger = `${fingerName}-${['Ubuntu', 'Pop'].includes(osName) ? osrelease : String(info[0])}`;
  return out;
}

/** Parses an os-release file as Python's platform.freedesktop_os_release does. */
export function parseOsRelease(text: string): Record<string, string> {
  const out: Record<string, string> = { NAME: 'Linux', ID: 'linux', PRETTY_NAME: 'Linux' };
  for (const line of text.split('\n')) {
    const m = /^([A-Za-z0-9_]+)=(.*)$/.exec(line.trim());
    if (!m) continue;
    let value = m[2]!;
    if (/^(["']).*\1$/.test(value) && value.length >= 2) value = value.slice(1, -1);
    out[m[1]!] = value.replace(/\\([$"'\\`])/g, '$1');
  }
  return out;
}

/** The os grains of a Linux host from its parsed os-release. */
export function linuxOsGrains(rel: Record<string, string>): Grains {
  const name = (rel.NAME ?? 'Linux').trim();
  const osName = deriveOs(name, rel.ID);
  const g: Grains = { lsb_distrib_id: name };
  if (rel.VERSION_ID !== undefined) g.lsb_distrib_release = rel.VERSION_ID;
  let codename = rel.VERSION_CODENAME ?? rel.PRETTY_NAME;
  // Rocky and Alma name their release in brackets: "Rocky Linux 9.3 (Blue Onyx)"
  if (codename !== undefined && ['Rocky', 'AlmaLinux', 'AstraLinuxSE'].some((o) => osName.includes(o))) {
    const inner = codename.split('(')[1]?.split(')')[0];
    if (inner !== undefined) codename = osName === 'AstraLinuxSE' ? inner.split(/\s+/)[0]!.toLowerCase() : inner;
  }
  if (codename !== undefined) g.lsb_distrib_codename = codename;
  g.os = osName;
  g.os_family = FAMILY_BY_OS[osName] ?? osName;
  g.osfullname = name;
  g.osrelease = (rel.VERSION_ID ?? '').trim();
  g.oscodename = (codename ?? '').trim();
  if (g.osrelease !== '') Object.assign(g, releaseGrains(osName, name, g.osrelease as string));
  return g;
}
