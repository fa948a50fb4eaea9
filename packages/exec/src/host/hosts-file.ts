import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { isIP } from 'node:net';

/**
 * The hosts-file operations Salt's `hosts` execution module has (list_hosts, get_alias,
 * has_pair, add_host, rm_host, set_host, set_comment), on one file, with Salt's line layout
 * (`IP<tab><tab>aliases<tab><tab># comment`) so a file edited by either reads the same.
 */

export interface HostEntry {
  aliases: string[];
  comment?: string;
}

/** Comment lines keep their place as `comment-N` keys, as Salt's parser does. */
export type HostsTable = Map<string, HostEntry | string>;

export async function listHosts(file: string): Promise<HostsTable> {
  const table: HostsTable = new Map();
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return table;
  }
  let count = 0;
  for (const raw of text.split('\n')) {
    let line = raw.trim();
    if (!line) continue;
    if (line.startsWith('#')) {
      table.set(`comment-${count++}`, line);
      continue;
    }
    let comment: string | undefined;
    const hash = line.indexOf('#');
    if (hash >= 0) {
      comment = line.slice(hash + 1).trimStart();
      line = line.slice(0, hash).trim();
    }
    const [ip, ...aliases] = line.split(/\s+/);
    let entry = table.get(ip!) as HostEntry | undefined;
    if (!entry) table.set(ip!, (entry = { aliases: [] }));
    entry.aliases.push(...aliases);
    if (comment) entry.comment = comment;
  }
  return table;
}

export function entryOf(table: HostsTable, ip: string): HostEntry | undefined {
  const e = table.get(ip);
  return typeof e === 'object' ? e : undefined;
}

export async function getAlias(file: string, ip: string): Promise<string[]> {
  return entryOf(await listHosts(file), ip)?.aliases ?? [];
}

export async function hasPair(file: string, ip: string, alias: string): Promise<boolean> {
  return (await getAlias(file, ip)).includes(alias);
}

/** Salt's ip_addr check: an IPv4 or IPv6 address, optionally with a CIDR suffix. */
export function validIp(addr: string): boolean {
  const [ip, bits, ...rest] = addr.split('/');
  if (rest.length) return false;
  const v = isIP(ip!);
  if (!v) return false;
  if (bits === undefined) return true;
  return /^\d+$/.test(bits) && Number(bits) <= (v === 4 ? 32 : 128);
}

async function ensureFile(file: string): Promise<void> {
  if (!existsSync(file)) await writeFile(file, '');
}

async function writeTable(file: string, table: HostsTable): Promise<void> {
  const lines: string[] = [];
  for (const [ip, info] of table) {
    const line =
      typeof info === 'string'
        ? info
        : info.comment !== undefined
          ? `${ip}\t\t${info.aliases.join(' ')}\t\t# ${info.comment}`
          : `${ip}\t\t${info.aliases.join(' ')}`;
    if (line.trim()) lines.push(`${line.trim()}\n`);
  }
  await writeFile(file, lines.join(''));
}

export async function addHost(file: string, ip: string, alias: string): Promise<boolean> {
  await ensureFile(file);
  const table = await listHosts(file);
  const entry = entryOf(table, ip);
  if (entry?.aliases.includes(alias)) return true;
  if (entry) entry.aliases.push(alias);
  else table.set(ip, { aliases: [alias] });
  await writeTable(file, table);
  return true;
}

export async function setComment(file: string, ip: string, comment: string): Promise<boolean> {
  await ensureFile(file);
  const table = await listHosts(file);
  const entry = entryOf(table, ip);
  if (!entry) return false;
  if (entry.comment === comment) return true;
  entry.comment = comment;
  await writeTable(file, table);
  return true;
}

/** Splits a file into lines that keep their own line ends, like Python's readlines. */
function readLines(text: string): string[] {
  return text.split(/(?<=\n)/).filter((l) => l !== '');
}

export async function rmHost(file: string, ip: string, alias: string): Promise<boolean> {
  if (!(await hasPair(file, ip, alias))) return true;
  await ensureFile(file);
  const lines = readLines(await readFile(file, 'utf8'));
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (!line || line.startsWith('#')) continue;
    const hash = line.indexOf('#');
    const info = hash >= 0 ? line.slice(0, hash) : line;
    const comment = hash >= 0 ? line.slice(hash + 1).trimStart() : undefined;
    const comps = info.split(/\s+/).filter(Boolean);
    if (comps[0] !== ip) continue;
    let rebuilt = `${ip}\t\t`;
    for (const existing of comps.slice(1)) if (existing !== alias) rebuilt += `${existing} `;
    if (rebuilt.trim() === ip) lines[i] = '';
    else lines[i] = comment ? `${rebuilt}# ${comment}\n` : `${rebuilt}\n`;
  }
  await writeFile(file, lines.join(''));
  return true;
}

/** Replaces every entry of `ip` with one line of `alias` (blank alias: removes them). */
export async function setHost(file: string, ip: string, alias: string): Promise<boolean> {
  await ensureFile(file);
  const lines = readLines(await readFile(file, 'utf8'));
  const replacement = alias.trim() ? `${ip}\t\t${alias}\n` : '';
  let replaced = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (!line || line.startsWith('#')) continue;
    if (line.split(/\s+/)[0] !== ip) continue;
    lines[i] = replaced ? '' : replacement;
    replaced = true;
  }
  if (!replaced) {
    const last = lines.length - 1;
    if (last >= 0 && !lines[last]!.endsWith('\n')) lines[last] += '\n';
    lines.push(replacement);
  }
  await writeFile(file, lines.join(''));
  return true;
}
