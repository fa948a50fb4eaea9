import { readFileSync, statSync } from 'node:fs';
import type { CommandRunner } from '@brine/core';

export interface PasswdEntry {
  name: string;
  uid: number;
  gid: number;
  gecos: string;
  home: string;
  shell: string;
}

export interface GroupEntry {
  name: string;
  gid: number;
  members: string[];
}

interface Cache<T> {
  mtimeMs: number;
  entries: T[];
}
const caches = new Map<string, Cache<unknown>>();

function readTable<T>(path: string, parse: (f: string[]) => T | undefined): T[] {
  let mtimeMs = -1;
  try {
    mtimeMs = statSync(path).mtimeMs;
  } catch {
    return [];
  }
  const hit = caches.get(path);
  if (hit && hit.mtimeMs === mtimeMs) return hit.entries as T[];
  const entries: T[] = [];
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const e = parse(line.split(':'));
    if (e) entries.push(e);
  }
  caches.set(path, { mtimeMs, entries });
  return entries;
}

function parsePasswd(f: string[]): PasswdEntry | undefined {
  if (f.length < 7) return undefined;
  return { name: f[0], uid: Number(f[2]), gid: Number(f[3]), gecos: f[4], home: f[5], shell: f[6] };
}

function parseGroup(f: string[]): GroupEntry | undefined {
  if (f.length < 4) return undefined;
  return { name: f[0], gid: Number(f[2]), members: f[3] ? f[3].split(',').filter(Boolean) : [] };
}

const isNumeric = (k: string | number) => typeof k === 'number' || /^\d+$/.test(k);

/** A user by name or uid: /etc/passwd first, then `getent` (NSS) through the runner. */
export async function getUser(key: string | number, cmd?: CommandRunner): Promise<PasswdEntry | undefined> {
  const local = readTable('/etc/passwd', parsePasswd).find((e) => (isNumeric(key) ? e.uid === Number(key) : e.name === key));
  if (local || !cmd) return local;
  const r = await cmd.run(['getent', 'passwd', String(key)]);
  return r.retcode === 0 ? parsePasswd(r.stdout.split('\n')[0].split(':')) : undefined;
}

/** A group by name or gid: /etc/group first, then `getent`. */
export async function getGroup(key: string | number, cmd?: CommandRunner): Promise<GroupEntry | undefined> {
  const local = readTable('/etc/group', parseGroup).find((e) => (isNumeric(key) ? e.gid === Number(key) : e.name === key));
  if (local || !cmd) return local;
  const r = await cmd.run(['getent', 'group', String(key)]);
  return r.retcode === 0 ? parseGroup(r.stdout.split('\n')[0].split(':')) : undefined;
}

/** Every group the user is a secondary member of (by the group table). */
export function secondaryGroups(user: string): string[] {
  return readTable('/etc/group', parseGroup)
    .filter((g) => g.members.includes(user))
    .map((g) => g.name);
}

/** Forget cached tables (after useradd & co.). */
export function forgetAccounts(): void {
  caches.clear();
}

/** A group's name from the local group table, when it is there. */
export function localGroupName(gid: number): string | undefined {
  return readTable('/etc/group', parseGroup).find((g) => g.gid === gid)?.name;
}
