import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { CommandRunner } from '@brine/core';

/**
 * Mounts and the fstab as Salt's mount execution module reads and edits them on Linux. Every
 * look at the kernel's mount table goes through the command runner (`cat /proc/self/mountinfo`),
 * not this process's own /proc, so a run inside a mount namespace sees that namespace's mounts.
 */

/** Salt's CommandExecutionError: the message ends up in the state's comment. */
export class MountError extends Error {}

export interface ActiveMount {
  device: string;
  fstype: string;
  opts: string[];
  superopts: string[];
  alt_device: string | null;
  device_uuid: string | null;
  device_label: string | null;
}

export interface FstabEntry {
  device: string;
  name: string;
  fstype: string;
  opts: string;
  dump: string;
  pass_num: string;
}

const FSTAB_KEYS = ['device', 'name', 'fstype', 'opts', 'dump', 'pass_num'] as const;
type FstabKey = (typeof FSTAB_KEYS)[number];

/** Salt's guess for match_on: auto — file systems without a stable device match on the mount point. */
const SPECIAL_FS = new Set(['none', 'tmpfs', 'sysfs', 'proc', 'fusectl', 'debugfs', 'securityfs', 'devtmpfs', 'cgroup', 'nfs', 'nfs4', 'glusterfs', 'btrfs']);

async function stdout(cmd: CommandRunner, argv: string[]): Promise<string> {
  const r = await cmd.run(argv);
  return r.retcode === 0 ? r.stdout : '';
}

/** uid=/gid= options hold numbers in the kernel's table: names are turned into ids to compare. */
export async function resolveIdOpts(cmd: CommandRunner, opts: string[]): Promise<string[]> {
  const out: string[] = [];
  for (const opt of opts) {
    const [key, value] = opt.split('=', 2) as [string, string | undefined];
    if ((key === 'uid' || key === 'gid') && value !== undefined && !/^[0-9]+$/.test(value)) {
      const entry = (await stdout(cmd, ['getent', key === 'uid' ? 'passwd' : 'group', value])).split(':');
      out.push(entry.length > 2 && entry[2] ? `${key}=${entry[2]}` : opt);
    } else out.push(opt.replaceAll('\\040', '\\ '));
  }
  return out;
}

/** `blkid`'s answer per device: UUID and LABEL (only asked when a mounted device is a block device). */
async function blkid(cmd: CommandRunner): Promise<Record<string, Record<string, string>>> {
  const devices: Record<string, Record<string, string>> = {};
  for (const line of (await stdout(cmd, ['blkid'])).split('\n')) {
    const i = line.indexOf(':');
    if (i < 0) continue;
    const fields: Record<string, string> = {};
    for (const m of line.slice(i + 1).matchAll(/(\w+)="([^"]*)"/g)) fields[m[1]!] = m[2]!;
    devices[line.slice(0, i)] = fields;
  }
  return devices;
}

/** Salt's mount.active(extended=True): the mount table keyed by mount point. */
export async function activeMounts(cmd: CommandRunner): Promise<Record<string, ActiveMount>> {
  const info = await cmd.run(['cat', '/proc/self/mountinfo']);
  if (info.retcode !== 0) throw new MountError('File not readable /proc/self/mountinfo');
  const listed: Record<string, string> = {};
  for (const line of (await stdout(cmd, ['mount', '-l'])).split('\n')) {
    const comps = line.trim().split(/\s+/);
    if (comps.length >= 3) listed[comps[2]!] = comps[0]!;
  }
  const rows = info.stdout.split('\n').filter((l) => l.trim() !== '');
  const ids = rows.some((l) => / - \S+ \/dev\//.test(l)) ? await blkid(cmd) : {};
  const ret: Record<string, ActiveMount> = {};
  for (const row of rows) {
    const comps = row.split(/\s+/);
    const sep = comps.indexOf('-');
    const device = comps[sep + 2] ?? '';
    const uuid = ids[device]?.UUID;
    ret[comps[4]!] = {
      device: device.replaceAll('\\040', '\\ '),
      fstype: comps[sep + 1] ?? '',
      opts: await resolveIdOpts(cmd, (comps[5] ?? '').split(',')),
      superopts: await resolveIdOpts(cmd, (comps[sep + 3] ?? '').split(',')),
      alt_device: listed[comps[4]!] ?? null,
      device_uuid: uuid ? uuid.toLowerCase() : null,
      device_label: ids[device]?.LABEL ?? null,
    };
  }
  return ret;
}

/** An fstab line as its six fields, or null for a comment or a line that is not an entry. */
function parseLine(line: string): FstabEntry | null {
  if (line.startsWith('#')) return null;
  const comps = line.trim().split(/\s+/).filter(Boolean);
  if (comps.length < 4 || comps.length > 6) return null;
  while (comps.length < 6) comps.push('0');
  return Object.fromEntries(FSTAB_KEYS.map((k, i) => [k, comps[i]!])) as unknown as FstabEntry;
}

const formatLine = (e: FstabEntry) => `${e.device}\t\t${e.name}\t${e.fstype}\t${e.opts}\t${e.dump} ${e.pass_num}\n`;

/** Whether a line satisfies every given field (options compared as a set). */
function matches(line: string, criteria: Partial<FstabEntry>): boolean {
  const entry = parseLine(line);
  if (!entry) return false;
  for (const [key, value] of Object.entries(criteria) as Array<[FstabKey, string]>) {
    if (key === 'opts') {
      if (entry.opts.split(',').sort().join(',') !== value.split(',').sort().join(',')) return false;
    } else if (entry[key] !== value) return false;
  }
  return true;
}

/** Salt's mount.fstab: entries keyed by mount point (a repeated point gets a trailing `_`). */
export interface FstabRow {
  device: string;
  fstype: string;
  opts: string[];
  dump: string;
  pass: string;
}

export function readFstab(config: string): Record<string, FstabRow> {
  const ret: Record<string, FstabRow> = {};
  if (!existsSync(config)) return ret;
  for (const line of readFileSync(config, 'utf8').split(/(?<=\n)/)) {
    const e = parseLine(line);
    if (!e) continue;
    let name = e.name;
    while (name in ret) name += '_';
    const { device, fstype, opts, dump, pass_num: pass } = e;
    ret[name] = { device, fstype, opts: opts.split(','), dump, pass };
  }
  return ret;
}

export interface SetFstab {
  name: string;
  device: string;
  fstype: string;
  opts: string | string[];
  dump?: unknown;
  pass_num?: unknown;
  config: string;
  test?: boolean;
  match_on?: string | string[];
}

/** Salt's mount.set_fstab: 'present', 'new' or 'change'; the file is written unless testing. */
export function setFstab(a: SetFstab): 'present' | 'new' | 'change' {
  const entry: FstabEntry = {
    name: a.name,
    device: a.device.replaceAll('\\ ', '\\040'),
    fstype: a.fstype,
    opts: (Array.isArray(a.opts) ? a.opts.join(',') : a.opts).replaceAll('\\ ', '\\040'),
    dump: String(a.dump ?? 0),
    pass_num: String(a.pass_num ?? 0),
  };
  const matchOn = a.match_on ?? 'auto';
  if (typeof matchOn !== 'string' && !Array.isArray(matchOn)) throw new MountError('match_on must be a string or list of strings');
  const keys = matchOn === 'auto' ? [SPECIAL_FS.has(a.fstype) ? 'name' : 'device'] : Array.isArray(matchOn) ? matchOn.map(String) : [matchOn];
  const unknown = keys.filter((k) => !(FSTAB_KEYS as readonly string[]).includes(k));
  if (unknown.length) throw new MountError(`Unrecognized keys in match_on: "${unknown.join(', ')}"`);
  const criteria = Object.fromEntries(keys.map((k) => [k, entry[k as FstabKey]])) as Partial<FstabEntry>;
  if (!existsSync(a.config)) throw new MountError(`Bad config file "${a.config}"`);
  let text: string;
  try {
    text = readFileSync(a.config, 'utf8');
  } catch (e) {
    throw new MountError(`Couldn't read from ${a.config}: ${(e as Error).message}`);
  }
  let ret: 'present' | 'new' | 'change' | null = null;
  const lines: string[] = [];
  for (const line of text.split(/(?<=\n)/)) {
    if (!matches(line, criteria)) {
      lines.push(line);
      continue;
    }
    ret = 'present';
    if (matches(line, entry)) lines.push(line);
    else {
      ret = 'change';
      lines.push(formatLine(entry));
    }
  }
  if (ret === null) {
    lines.push(formatLine(entry));
    ret = 'new';
  }
  if (ret !== 'present' && !a.test) {
    try {
      writeFileSync(a.config, lines.join(''));
    } catch {
      throw new MountError(`File not writable ${a.config}`);
    }
  }
  return ret;
}

/** Salt's mount.rm_fstab: drops every line for the mount point (and device, when given). */
export function rmFstab(name: string, device: string | undefined, config: string): true {
  let text: string;
  try {
    text = readFileSync(config, 'utf8');
  } catch (e) {
    throw new MountError(`Couldn't read from ${config}: ${(e as Error).message}`);
  }
  const criteria: Partial<FstabEntry> = device ? { name, device } : { name };
  const lines = text.split(/(?<=\n)/);
  const kept = lines.filter((l) => !matches(l, criteria));
  if (kept.length !== lines.length) {
    try {
      writeFileSync(config, kept.join(''));
    } catch (e) {
      throw new MountError(`Couldn't write to ${config}: ${(e as Error).message}`);
    }
  }
  return true;
}

const optsList = (opts: string | string[]) => (Array.isArray(opts) ? [...opts] : opts.split(','));

/** mount(8) with Salt's arguments; true, or the command's stderr as the failure. */
export async function mount(
  cmd: CommandRunner,
  name: string,
  device: string,
  fstype: string,
  opts: string | string[],
  mkmnt = false,
  user?: string,
): Promise<true | string> {
  if (mkmnt && !existsSync(name)) mkdirSync(name, { recursive: true });
  const argv = ['mount', '-o', optsList(opts).join(',')];
  if (fstype) argv.push('-t', fstype);
  const r = await cmd.run([...argv, device, name], user ? { runas: user } : {});
  return r.retcode === 0 ? true : r.stderr;
}

/** Salt's mount.remount: `-o remount,...` when mounted, a plain mount otherwise. */
export async function remount(
  cmd: CommandRunner,
  name: string,
  device: string,
  fstype: string,
  opts: string | string[],
  mkmnt = false,
  user?: string,
): Promise<true | string> {
  if (!(name in (await activeMounts(cmd)))) return mount(cmd, name, device, fstype, opts, mkmnt, user);
  const list = optsList(opts);
  if (!list.includes('remount')) list.push('remount');
  const argv = ['mount', '-o', list.join(',')];
  if (fstype) argv.push('-t', fstype);
  const r = await cmd.run([...argv, device, name], user ? { runas: user } : {});
  return r.retcode === 0 ? true : r.stderr;
}

/** Salt's mount.umount: true, or why not (stderr, or that nothing is mounted there). */
export async function umount(cmd: CommandRunner, name: string, device?: string, lazy = false, user?: string): Promise<true | string> {
  if (!(name in (await activeMounts(cmd)))) return `${name} does not have anything mounted`;
  const r = await cmd.run(['umount', ...(lazy ? ['-l'] : []), device || name], user ? { runas: user } : {});
  return r.retcode === 0 ? true : r.stderr;
}

/**
 * Salt's mount cache: the options a mount point was last mounted with by a state, so that an
 * option later dropped from the state still forces a remount.
 */
export interface MountCacheEntry {
  device: string;
  fstype: string;
  mkmnt: boolean;
  opts: string[];
}

function readCache(file: string): Record<string, MountCacheEntry> {
  try {
    return (JSON.parse(readFileSync(file, 'utf8')) as { mounts?: Record<string, MountCacheEntry> }).mounts ?? {};
  } catch {
    return {};
  }
}

export function readMountCache(file: string, name: string): MountCacheEntry | undefined {
  return readCache(file)[name];
}

export function writeMountCache(file: string, name: string, entry: MountCacheEntry | null): void {
  const mounts = readCache(file);
  if (entry) mounts[name] = entry;
  else if (name in mounts) delete mounts[name];
  else return;
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify({ mounts }));
}
