import { lstatSync, type Stats } from 'node:fs';
import { chown, chmod } from './sync-fs.js';
import type { CommandRunner } from '@brine/core';
import { getGroup, getUser, localGroupName, localUserName } from './accounts.js';

/** Salt's mode form: a string of four octal digits ("0644"); numbers are read as written (644). */
export function normaliseMode(mode: unknown): string | undefined {
  if (mode === undefined || mode === null || mode === '') return undefined;
  let s = String(mode).trim();
  if (s.startsWith('0o')) s = s.slice(2);
  if (!/^[0-7]{1,4}$/.test(s)) throw new Error(`'${String(mode)}' is not a valid file mode`);
  return s.padStart(4, '0');
}

export function modeOf(st: Stats): string {
  return (st.mode & 0o7777).toString(8).padStart(4, '0');
}

export async function lstatOrUndefined(path: string): Promise<Stats | undefined> {
  return lstatOrUndefinedSync(path);
}

export function lstatOrUndefinedSync(path: string): Stats | undefined {
  try {
    // a missing path is an answer, not an exception (building one costs more than the lstat)
    return lstatSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

export interface Ownership {
  uid?: number;
  gid?: number;
  error?: string;
}

/** The id test mode gives an owner that does not exist yet: no path has it, so a change shows. */
export const OWNER_TO_BE_CREATED = -1;

/**
 * Resolves user/group names (or ids) to ids. Unknown ones are Salt's error ("User x is not
 * available " and "Group y is not available", run together as Salt writes them), except in test
 * mode: there Salt only warns, since an earlier state of the run may create the account, and
 * predicts the change (OWNER_TO_BE_CREATED).
 */
export async function resolveOwnership(user: unknown, group: unknown, cmd: CommandRunner, test = false): Promise<Ownership> {
  const out: Ownership = {};
  let err = '';
  if (user !== undefined && user !== null && user !== '') {
    const u = await getUser(String(user), cmd);
    if (u) out.uid = u.uid;
    else if (test) out.uid = OWNER_TO_BE_CREATED;
    else err += `User ${String(user)} is not available `;
  }
  if (group !== undefined && group !== null && group !== '') {
    const g = await getGroup(String(group), cmd);
    if (g) out.gid = g.gid;
    else if (test) out.gid = OWNER_TO_BE_CREATED;
    else err += `Group ${String(group)} is not available`;
  }
  if (err) out.error = err;
  return out;
}

export async function ownerNames(st: Stats, cmd?: CommandRunner): Promise<{ user: string; group: string }> {
  const u = await getUser(st.uid, cmd);
  const g = await getGroup(st.gid, cmd);
  return { user: u?.name ?? String(st.uid), group: g?.name ?? String(st.gid) };
}

/** ownerNames without a promise, when both ids are in the local tables (else undefined: NSS may know them). */
export function localOwnerNames(st: Stats): { user: string; group: string } | undefined {
  const user = localUserName(st.uid);
  const group = localGroupName(st.gid);
  return user !== undefined && group !== undefined ? { user, group } : undefined;
}

export interface MetaWant {
  user?: unknown;
  group?: unknown;
  mode?: string;
  uid?: number;
  gid?: number;
}

/** What ownership/mode changes a path needs, as Salt reports them ({user, group, mode}). */
export function metaChanges(st: Stats, want: MetaWant): Record<string, string> {
  const ch: Record<string, string> = {};
  if (want.uid !== undefined && st.uid !== want.uid) ch.user = String(want.user);
  if (want.gid !== undefined && st.gid !== want.gid) ch.group = String(want.group);
  if (want.mode !== undefined && modeOf(st) !== want.mode) ch.mode = want.mode;
  return ch;
}

/** Brings a path's owner and mode to what is wanted; the changes made, as metaChanges words them. */
export async function enforceMeta(path: string, st: Stats, want: MetaWant): Promise<Record<string, string>> {
  const ch = metaChanges(st, want);
  const uid = ch.user ? want.uid : undefined;
  const gid = ch.group ? want.gid : undefined;
  if (uid !== undefined || gid !== undefined) await chown(path, uid ?? -1, gid ?? -1);
  if (ch.mode !== undefined) await chmod(path, parseInt(ch.mode, 8));
  return ch;
}
