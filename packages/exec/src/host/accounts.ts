import type { CommandRunner } from '@brine/core';
import { nssFileAnswer } from './nss-files.js';

export interface PasswdEntry {
  name: string;
  passwd: string;
  uid: number;
  gid: number;
  gecos: string;
  home: string;
  shell: string;
}

export interface GroupEntry {
  name: string;
  passwd: string;
  gid: number;
  members: string[];
}

/** getent's lines, split: from the /etc files where NSS answers from them alone (nss-files.ts). */
async function getent(cmd: CommandRunner, db: 'passwd' | 'group', key?: string | number): Promise<string[][]> {
  const local = nssFileAnswer(db, key);
  if (local) return local;
  const r = await cmd.run(['getent', db, ...(key === undefined ? [] : [String(key)])]);
  return r.retcode !== 0 ? [] : lines(r.stdout).map((l) => l.split(':'));
}

/**
 * The account databases as getent gives them, so NSS sources (LDAP, sssd) count as Python's pwd
 * and grp modules see them. No key: every entry; a key that is not there: none.
 */
export async function passwd(cmd: CommandRunner, key?: string | number): Promise<PasswdEntry[]> {
  return (await getent(cmd, 'passwd', key)).map(([name = '', pw = '', uid = '0', gid = '0', gecos = '', home = '', shell = '']) => {
    return { name, passwd: pw, uid: Number(uid), gid: Number(gid), gecos, home, shell };
  });
}

export async function groups(cmd: CommandRunner, key?: string | number): Promise<GroupEntry[]> {
  return (await getent(cmd, 'group', key)).map(([name = '', pw = '', gid = '0', mem = '']) => {
    return { name, passwd: pw, gid: Number(gid), members: mem === '' ? [] : mem.split(',') };
  });
}

function lines(s: string): string[] {
  return s.split('\n').filter((l) => l !== '');
}

/** Salt's uid_to_user/gid_to_group: the name, or the number when no entry has it. */
export async function userName(cmd: CommandRunner, uid: number): Promise<string | number> {
  return (await passwd(cmd, uid))[0]?.name ?? uid;
}

export async function groupName(cmd: CommandRunner, gid: number): Promise<string | number> {
  return (await groups(cmd, gid))[0]?.name ?? gid;
}

/** Salt's get_group_list: the groups listing the user as a member, and its primary group; sorted. */
export async function groupList(cmd: CommandRunner, user: PasswdEntry): Promise<string[]> {
  const all = await groups(cmd);
  const names = new Set(all.filter((g) => g.members.includes(user.name)).map((g) => g.name));
  const primary = all.find((g) => g.gid === user.gid);
  if (primary) names.add(primary.name);
  return [...names].sort();
}
