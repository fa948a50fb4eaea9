import { readFileSync, statSync } from 'node:fs';
import { forgetAtSnapshotRestore, type CommandRunner } from '@brine/core';

export interface PasswdEntry {
  name: string;
  uid: number;
  gid: number;
  gecos: string;
  home: string;
  shell: string;
  /** The password field of /etc/passwd ('x' where the shadow file holds it). */
  passwd: string;
}

export interface GroupEntry {
  name: string;
  gid: number;
  members: string[];
  /** The password field of /etc/group ('x' where gshadow holds it). */
  passwd: string;
}

/** A table as read, with lookups by name and by numeric id. */
interface Table<T> {
  mtimeMs: number;
  entries: T[];
  byName: Map<string, T>;
  byId: Map<number, T>;
}
const caches = new Map<string, Table<unknown>>();
// the startup snapshot's tables are the build host's (an equal mtime does not make them this one's)
forgetAtSnapshotRestore(() => caches.clear());
const EMPTY: Table<never> = { mtimeMs: -1, entries: [], byName: new Map<string, never>(), byId: new Map<number, never>() };

function readTable<T extends { name: string }>(path: string, parse: (f: string[]) => T | undefined, idOf: (e: T) => number): Table<T> {
  let mtimeMs = -1;
  try {
    mtimeMs = statSync(path).mtimeMs;
  } catch {
    return EMPTY;
  }
  const hit = caches.get(path);
  if (hit && hit.mtimeMs === mtimeMs) return hit as Table<T>;
  const table: Table<T> = { mtimeMs, entries: [], byName: new Map(), byId: new Map() };
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const e = parse(line.split(':'));
    if (!e) continue;
    table.entries.push(e);
    // The first line wins, as a linear search of the file would find it.
    if (!table.byName.has(e.name)) table.byName.set(e.name, e);
    if (!table.byId.has(idOf(e))) table.byId.set(idOf(e), e);
  }
  caches.set(path, table);
  return table;
}

function parsePasswd(f: string[]): PasswdEntry | undefined {
  if (f.length < 7) return undefined;
  return { name: f[0], passwd: f[1], uid: Number(f[2]), gid: Number(f[3]), gecos: f[4], home: f[5], shell: f[6] };
}

function parseGroup(f: string[]): GroupEntry | undefined {
  if (f.length < 4) return undefined;
  return { name: f[0], passwd: f[1], gid: Number(f[2]), members: f[3] ? f[3].split(',').filter(Boolean) : [] };
}

const passwd = () => readTable('/etc/passwd', parsePasswd, (e) => e.uid);
const groups = () => readTable('/etc/group', parseGroup, (e) => e.gid);

const isNumeric = (k: string | number) => typeof k === 'number' || /^\d+$/.test(k);

function find<T>(table: Table<T>, key: string | number): T | undefined {
  return isNumeric(key) ? table.byId.get(Number(key)) : table.byName.get(key as string);
}

/** A user by name or uid: /etc/passwd first, then `getent` (NSS) through the runner. */
export async function getUser(key: string | number, cmd?: CommandRunner): Promise<PasswdEntry | undefined> {
  const local = find(passwd(), key);
  if (local || !cmd) return local;
  const r = await cmd.run(['getent', 'passwd', String(key)]);
  return r.retcode === 0 ? parsePasswd(r.stdout.split('\n')[0].split(':')) : undefined;
}

/** A group by name or gid: /etc/group first, then `getent`. */
export async function getGroup(key: string | number, cmd?: CommandRunner): Promise<GroupEntry | undefined> {
  const local = find(groups(), key);
  if (local || !cmd) return local;
  const r = await cmd.run(['getent', 'group', String(key)]);
  return r.retcode === 0 ? parseGroup(r.stdout.split('\n')[0].split(':')) : undefined;
}

/** Every group the user is a secondary member of (by the group table). */
export function secondaryGroups(user: string): string[] {
  return groups()
    .entries.filter((g) => g.members.includes(user))
    .map((g) => g.name);
}

/** Forget cached tables (after useradd & co.). */
export function forgetAccounts(): void {
  caches.clear();
}

/** A user's name from the local passwd table, when it is there. */
export function localUserName(uid: number): string | undefined {
  return passwd().byId.get(uid)?.name;
}

/** A group's name from the local group table, when it is there. */
export function localGroupName(gid: number): string | undefined {
  return groups().byId.get(gid)?.name;
}
