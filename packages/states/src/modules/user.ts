import { chownSync, mkdirSync, statSync } from 'node:fs';
import type { ArgSpec, CommandRunner, StateContext, StateModule, StateReturn } from '@brine/core';
import { randomSalt, shaCrypt } from '@brine/exec';
import { forgetAccounts, getGroup, getUser, localGroupName, secondaryGroups, type PasswdEntry } from '../util/accounts.js';
import { asBool, asList } from '../util/args.js';
import { needPrograms } from '../util/which.js';

const presentArgs: Record<string, ArgSpec> = {
  uid: { type: ['number', 'string'] },
  gid: { type: ['number', 'string'] },
  groups: { type: ['list', 'string'] },
  optional_groups: { type: ['list', 'string'] },
  remove_groups: { type: 'boolean' },
  home: { type: 'string' },
  createhome: { type: 'boolean' },
  shell: { type: 'string' },
  system: { type: 'boolean' },
  fullname: { type: 'string' },
  usergroup: { type: 'boolean' },
  unique: { type: 'boolean' },
  roomnumber: { type: ['string', 'number'] },
  workphone: { type: ['string', 'number'] },
  homephone: { type: ['string', 'number'] },
  other: { type: ['string', 'number'] },
  allow_uid_change: { type: 'boolean' },
  allow_gid_change: { type: 'boolean' },
  password: { type: 'string' },
  hash_password: { type: 'boolean' },
  enforce_password: { type: 'boolean' },
  empty_password: { type: 'boolean' },
  date: { type: ['number', 'string'] },
  mindays: { type: ['number', 'string'] },
  maxdays: { type: ['number', 'string'] },
  inactdays: { type: ['number', 'string'] },
  warndays: { type: ['number', 'string'] },
  expire: { type: ['number', 'string'] },
};

/** The password-ageing arguments: their /etc/shadow field and chage flag, in Salt's order. */
const AGEING = [
  ['date', 'lstchg', '-d', 'last change date'],
  ['mindays', 'min', '-m', 'minimum days'],
  ['maxdays', 'max', '-M', 'maximum days'],
  ['inactdays', 'inact', '-I', 'inactive days'],
  ['warndays', 'warn', '-W', 'warn days'],
  ['expire', 'expire', '-E', 'expire days'],
] as const;

/** A numeric shadow field as Python's spwd reads it: an empty one is -1. */
const shadowNum = (v: string | undefined) => (v ? Number(v) : -1);

/**
 * The ageing arguments that differ from SHADOW: as Salt, date and the day counts when given
 * (0 too), expire only when truthy. A new account (no SHADOW) gets those that are truthy, date when given.
 */
function ageingDiff(args: Record<string, unknown>, shadow: Record<string, string> | undefined): [string, number, string][] {
  const out: [string, number, string][] = [];
  for (const [arg, field, flag] of AGEING) {
    const v = args[arg];
    if (v === undefined || v === null || ((arg === 'expire' || !shadow) && arg !== 'date' && !Number(v))) continue;
    if (!shadow || shadowNum(shadow[field]) !== Number(v)) out.push([arg, Number(v), flag]);
  }
  return out;
}

async function setAgeing(cmd: CommandRunner, name: string, ages: [string, number, string][]): Promise<string | undefined> {
  if (!ages.length) return undefined;
  const r = await cmd.run(['chage', ...ages.flatMap(([, v, flag]) => [flag, String(v)]), name]);
  return r.retcode === 0 ? undefined : r.stderr || r.stdout;
}

const REDACTED = 'XXX-REDACTED-XXX';
const SHADOW_KEYS = ['name', 'passwd', 'lstchg', 'min', 'max', 'warn', 'inact', 'expire'] as const;

/** Salt's shadow.info: the user's /etc/shadow fields, through getent (so a namespace's file is read). */
async function shadowInfo(cmd: CommandRunner, name: string): Promise<Record<string, string> | undefined> {
  const r = await cmd.run(['getent', 'shadow', name]);
  if (r.retcode !== 0) return undefined;
  const f = r.stdout.replace(/\n+$/, '').split(':');
  return Object.fromEntries(SHADOW_KEYS.map((k, i) => [k, f[i] ?? '']));
}

/**
 * The hash to set for hash_password: the clear text hashed with the salt and algorithm of the
 * hash already set, so an unchanged password gives the same hash (Salt's idempotence trick); a
 * fresh SHA-512 salt where there is none.
 */
async function hashed(cmd: CommandRunner, name: string, clear: string): Promise<string> {
  const current = (await shadowInfo(cmd, name))?.passwd ?? '';
  const m = /^\$(5|6)\$((?:rounds=\d+\$)?[^$]*)\$[^$]*$/.exec(current);
  return m ? shaCrypt(clear, m[2]!, m[1] === '5' ? 'sha256' : 'sha512') : shaCrypt(clear, randomSalt());
}

/** Sets the hash with chpasswd -e (on stdin: never on a command line other users can read). */
async function setPassword(cmd: CommandRunner, name: string, hash: string): Promise<string | undefined> {
  const r = await cmd.run(['chpasswd', '-e'], { stdin: `${name}:${hash}\n` });
  return r.retcode === 0 ? undefined : r.stderr || r.stdout;
}

async function deletePassword(cmd: CommandRunner, name: string): Promise<string | undefined> {
  const r = await cmd.run(['passwd', '-d', name]);
  return r.retcode === 0 ? undefined : r.stderr || r.stdout;
}

const isDir = (p: string) => {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
};

const GECOS = ['fullname', 'roomnumber', 'workphone', 'homephone', 'other'] as const;

/** The five GECOS fields, as Salt splits them (at most five, missing ones empty). */
function gecosOf(u: PasswdEntry): Record<(typeof GECOS)[number], string> {
  const f = u.gecos.split(',');
  const parts = [...f.slice(0, 4), f.slice(4).join(',')];
  return Object.fromEntries(GECOS.map((k, i) => [k, parts[i] ?? ''])) as Record<(typeof GECOS)[number], string>;
}

/** Salt's user.info: what a new user's changes show. */
function userInfo(u: PasswdEntry): Record<string, unknown> {
  return { gid: u.gid, groups: allGroups(u), home: u.home, name: u.name, passwd: u.passwd, shell: u.shell, uid: u.uid, ...gecosOf(u) };
}

/** The GECOS text for these fields (trailing empty fields dropped). */
function gecosText(fields: Record<string, string>): string {
  return GECOS.map((k) => fields[k] ?? '')
    .join(',')
    .replace(/,+$/, '');
}

/** The resource contract of a user account. */
export function userState(u: PasswdEntry | undefined): Record<string, unknown> | null {
  if (!u) return null;
  return { name: u.name, uid: u.uid, gid: u.gid, home: u.home, shell: u.shell, fullname: u.gecos.split(',')[0], groups: allGroups(u) };
}

function allGroups(u: PasswdEntry): string[] {
  const primary = localGroupName(u.gid);
  const set = new Set(secondaryGroups(u.name));
  if (primary) set.add(primary);
  return [...set].sort();
}

/**
 * Salt's user.add then chgroups: usermod -G only when the new account's groups (its primary one
 * included) are not already the wanted ones, so a user is not listed in its own primary group.
 */
async function addGroups(name: string, want: string[], ctx: StateContext): Promise<void> {
  if (!want.length) return;
  forgetAccounts();
  const u = await getUser(name, ctx.cmd);
  const have = u ? allGroups(u) : [];
  if (have.length === new Set(want).size && want.every((g) => have.includes(g))) return;
  await ctx.cmd.run(['usermod', '-G', want.join(','), name]);
  forgetAccounts();
}

async function gidOf(gid: unknown, ctx: StateContext): Promise<number | undefined | 'missing'> {
  if (gid === undefined || gid === null || gid === '') return undefined;
  const g = await getGroup(String(gid), ctx.cmd);
  return g ? g.gid : 'missing';
}

async function present(args: Record<string, unknown>, ctx: StateContext): Promise<StateReturn> {
  const name = String(args.name);
  const ret: StateReturn = { name, changes: {}, result: true, comment: '' };
  const emptyPassword = asBool(args.empty_password);
  let password = typeof args.password === 'string' && args.password !== '' ? args.password : undefined;
  if (password !== undefined && asBool(args.hash_password)) password = await hashed(ctx.cmd, name, password);
  const gid = await gidOf(args.gid, ctx);
  const groups = asList(args.groups);
  const optional = [];
  for (const g of asList(args.optional_groups)) if (await getGroup(g, ctx.cmd)) optional.push(g);
  const missingGroups = [];
  for (const g of groups) if (!(await getGroup(g, ctx.cmd))) missingGroups.push(g);
  if (missingGroups.length) return { ...ret, result: false, comment: `The following group(s) are not present: ${missingGroups.join(',')}` };
  const wantGroups = [...new Set([...groups, ...optional])];
  const user = await getUser(name, ctx.cmd);
  ret.old_state = userState(user);
  // Salt looks `gid` up only for an account that exists: a new one is predicted in test mode (the
  // group may come from this run) and left to useradd otherwise
  if (gid === 'missing' && user) return { ...ret, result: false, comment: `The following group(s) are not present: ${String(args.gid)}` };

  const want: Wanted = { name, gid, wantGroups, password, emptyPassword };
  if (!user) return addUser(args, ctx, ret, want);
  const { diff, mod, refused } = idChanges(args, user, gid);
  if (refused.length) {
    return {
      ...ret,
      result: false,
      comment: `Encountered error checking for needed changes. Additional info follows:\n\n${refused.map((r) => `- ${r}`).join('\n')}`,
    };
  }
  const { home, shadow, ages } = await attributeChanges(args, ctx, user, want, diff, mod);
  if (!Object.keys(diff).length) {
    ret.comment = `User ${name} is present and up to date`;
    ret.new_state = ret.old_state;
    return ret;
  }
  if (ctx.test) {
    ret.result = null;
    // as Salt: test mode names the changes in the comment only
    ret.comment =
      'The following user attributes are set to be changed:\n' +
      Object.entries(diff)
        .map(
          ([k, v]) =>
            `${k}: ${k === 'passwd' ? REDACTED : Array.isArray(v) ? `[${v.map((x) => `'${String(x)}'`).join(', ')}]` : v === true ? 'True' : String(v)}\n`,
        )
        .join('');
    return ret;
  }
  return modifyUser(ctx, ret, user, want, { diff, mod, home, shadow, ages });
}

/** What present() settled from its arguments before looking at the account. */
interface Wanted {
  name: string;
  gid: number | undefined | 'missing';
  wantGroups: string[];
  password: string | undefined;
  emptyPassword: boolean;
}

/** Creates a missing user with useradd, then its password and ageing. */
async function addUser(args: Record<string, unknown>, ctx: StateContext, ret: StateReturn, w: Wanted): Promise<StateReturn> {
  const { name, gid, wantGroups, password, emptyPassword } = w;
  const argv = ['useradd'];
  if (args.uid !== undefined) argv.push('-u', String(args.uid));
  if (gid !== undefined) argv.push('-g', gid === 'missing' ? String(args.gid) : String(gid));
  else if (args.usergroup === false) argv.push('-N');
  if (typeof args.home === 'string') argv.push('-d', args.home);
  argv.push(asBool(args.createhome, true) && !asBool(args.system) ? '-m' : '-M');
  if (typeof args.shell === 'string') argv.push('-s', args.shell);
  if (asBool(args.system)) argv.push('-r');
  const gecos = gecosText(Object.fromEntries(GECOS.map((k) => [k, args[k] === undefined || args[k] === null ? '' : String(args[k])])));
  if (gecos) argv.push('-c', gecos);
  if (args.unique === false) argv.push('-o');
  argv.push(name);
  if (ctx.test) {
    ret.result = null;
    ret.comment = `User ${name} set to be added`;
    return ret;
  }
  const r = await ctx.cmd.run(argv);
  forgetAccounts();
  if (r.retcode !== 0) return { ...ret, result: false, comment: `Failed to create new user ${name}` };
  await addGroups(name, wantGroups, ctx);
  const made = await getUser(name, ctx.cmd);
  ret.new_state = userState(made);
  ret.changes = made ? userInfo(made) : { name };
  // as Salt: without createhome the home is reported empty
  if (!asBool(args.createhome, true)) ret.changes.home = '';
  ret.comment = `New user ${name} created`;
  if (password !== undefined && !emptyPassword) {
    const failed = await setPassword(ctx.cmd, name, password);
    if (failed !== undefined || (await shadowInfo(ctx.cmd, name))?.passwd !== password) {
      return { ...ret, result: false, comment: `User ${name} created but failed to set password to ${REDACTED}` };
    }
    ret.changes.password = REDACTED;
  }
  if (emptyPassword && password === undefined) {
    await deletePassword(ctx.cmd, name);
    if ((await shadowInfo(ctx.cmd, name))?.passwd !== '') return { ...ret, result: false, comment: `User ${name} created but failed to empty password` };
    ret.changes.password = '';
  }
  const ages = ageingDiff(args, undefined);
  await setAgeing(ctx.cmd, name, ages);
  const after = ages.length ? await shadowInfo(ctx.cmd, name) : undefined;
  for (const [arg, v] of ages) {
    const [, field, , words] = AGEING.find((a) => a[0] === arg)!;
    if (shadowNum(after?.[field]) !== v) return { ...ret, result: false, comment: `User ${name} created but failed to set ${words} to ${v}` };
    ret.changes[arg] = v;
  }
  return ret;
}

/** The uid and gid changes of an existing user, and the ones refused without allow_*_change. */
function idChanges(args: Record<string, unknown>, user: PasswdEntry, gid: Wanted['gid']): { diff: Record<string, unknown>; mod: string[]; refused: string[] } {
  const diff: Record<string, unknown> = {};
  const mod: string[] = [];
  const refused: string[] = [];
  if (args.uid !== undefined && Number(args.uid) !== user.uid) {
    if (!asBool(args.allow_uid_change)) {
      refused.push(
        `Changing uid (${user.uid} -> ${String(args.uid)}) not permitted, set allow_uid_change to True to force this change. Note that this will not change file ownership.`,
      );
    }
    diff.uid = Number(args.uid);
    mod.push('-u', String(args.uid));
  }
  if (gid !== undefined && gid !== user.gid) {
    if (!asBool(args.allow_gid_change)) {
      refused.push(
        `Changing gid (${user.gid} -> ${String(args.gid)}) not permitted, set allow_gid_change to True to force this change. Note that this will not change file ownership.`,
      );
    }
    diff.gid = gid;
    mod.push('-g', String(gid));
  }
  return { diff, mod, refused };
}

/** Adds the home, shell, password, ageing, GECOS and group changes to `diff` (usermod's to `mod`). */
async function attributeChanges(args: Record<string, unknown>, ctx: StateContext, user: PasswdEntry, w: Wanted, diff: Record<string, unknown>, mod: string[]) {
  const { name, password, emptyPassword, wantGroups } = w;
  if (typeof args.home === 'string' && args.home !== user.home) {
    diff.home = args.home;
    mod.push('-d', args.home);
  }
  // as Salt: createhome (default on) also makes the missing home of an existing user
  const home = typeof args.home === 'string' ? args.home : user.home;
  if (asBool(args.createhome, true) && home && !isDir(home)) diff.homeDoesNotExist = home;
  if (typeof args.shell === 'string' && args.shell !== user.shell) {
    diff.shell = args.shell;
    mod.push('-s', args.shell);
  }
  const shadow = await shadowInfo(ctx.cmd, name);
  if (shadow && password !== undefined && !emptyPassword) {
    // a hash set by someone else is kept when enforce_password is off, unless none was ever set
    if ((shadow.passwd === '!' || asBool(args.enforce_password, true)) && shadow.passwd !== password) diff.passwd = password;
  }
  if (shadow && emptyPassword && shadow.passwd !== '') diff.empty_password = true;
  const ages = shadow ? ageingDiff(args, shadow) : [];
  for (const [arg, v] of ages) diff[arg] = v;
  const have = gecosOf(user);
  const want = { ...have };
  for (const k of GECOS) {
    if (args[k] === undefined || args[k] === null) continue;
    const v = String(args[k]);
    if (v !== have[k]) {
      diff[k] = v;
      want[k] = v;
    }
  }
  if (GECOS.some((k) => k in diff)) mod.push('-c', gecosText(want));
  if (args.groups !== undefined || args.optional_groups !== undefined) {
    const current = secondaryGroups(name).sort();
    const primary = (await getGroup(user.gid, ctx.cmd))?.name;
    const wanted = wantGroups.filter((g) => g !== primary).sort();
    const removeOthers = asBool(args.remove_groups, true);
    const target = removeOthers ? wanted : [...new Set([...current, ...wanted])].sort();
    if (target.join(',') !== current.join(',')) {
      diff.groups = target;
      mod.push('-G', target.join(','));
    }
  }
  return { home, shadow, ages };
}

type Changes = { diff: Record<string, unknown>; mod: string[] } & Awaited<ReturnType<typeof attributeChanges>>;

/** Applies the changes to an existing user and reports what changed, as Salt does. */
async function modifyUser(ctx: StateContext, ret: StateReturn, user: PasswdEntry, w: Wanted, c: Changes): Promise<StateReturn> {
  const { name, password } = w;
  const { diff, mod, home, shadow, ages } = c;
  if (diff.passwd !== undefined) {
    const failed = await setPassword(ctx.cmd, name, password!);
    if (failed !== undefined) return { ...ret, result: false, comment: `These values could not be changed: passwd: ${failed}` };
  }
  if (diff.empty_password) await deletePassword(ctx.cmd, name);
  const agingFailed = await setAgeing(ctx.cmd, name, ages);
  if (agingFailed !== undefined)
    return { ...ret, result: false, comment: `These values could not be changed: ${ages.map((a) => a[0]).join(', ')}: ${agingFailed}` };
  if (mod.length) {
    const r = await ctx.cmd.run(['usermod', ...mod, name]);
    forgetAccounts();
    if (r.retcode !== 0) return { ...ret, result: false, comment: `These values could not be changed: ${Object.keys(diff).join(', ')}: ${r.stderr}` };
  }
  if (diff.homeDoesNotExist !== undefined && !isDir(home)) {
    mkdirSync(home, { recursive: true, mode: 0o755 });
    chownSync(home, user.uid, user.gid);
  }
  const updated = await getUser(name, ctx.cmd);
  // as Salt: what usermod changed, then every shadow field that differs now (the hash redacted)
  const shown = ['passwd', 'empty_password', 'homeDoesNotExist', ...AGEING.map((a) => a[0])];
  ret.changes = Object.fromEntries(Object.entries(diff).filter(([k]) => !shown.includes(k)));
  const after = await shadowInfo(ctx.cmd, name);
  for (const k of SHADOW_KEYS) {
    if (shadow && after && shadow[k] !== after[k]) ret.changes[k] = k === 'passwd' ? REDACTED : k === 'name' ? after[k] : shadowNum(after[k]);
  }
  // as Salt: the groups a change leaves, the primary one included
  if (diff.groups !== undefined && updated) ret.changes.groups = allGroups(updated);
  ret.comment = Object.keys(ret.changes).length ? `Updated user ${name}` : `User ${name} is present and up to date`;
  ret.new_state = userState(updated);
  return ret;
}

async function absent(args: Record<string, unknown>, ctx: StateContext): Promise<StateReturn> {
  const name = String(args.name);
  const ret: StateReturn = { name, changes: {}, result: true, comment: '', new_state: null };
  const user = await getUser(name, ctx.cmd);
  ret.old_state = userState(user);
  if (!user) {
    ret.comment = `User ${name} is not present`;
    return ret;
  }
  if (ctx.test) {
    ret.result = null;
    ret.changes = { [name]: 'removed' };
    ret.comment = `User ${name} set for removal`;
    return ret;
  }
  const ownGroup = await getGroup(name, ctx.cmd);
  const hadOwnGroup = ownGroup !== undefined && ownGroup.gid === user.gid;
  const argv = ['userdel'];
  if (asBool(args.purge)) argv.push('-r');
  if (asBool(args.force)) argv.push('-f');
  const r = await ctx.cmd.run([...argv, name]);
  forgetAccounts();
  if (r.retcode !== 0 && !(asBool(args.purge) && r.retcode === 12)) {
    return { ...ret, result: false, comment: `Failed to remove user ${name}: ${r.stderr || r.stdout}` };
  }
  ret.changes = { [name]: 'removed' };
  // userdel also removes the user's own group (USERGROUPS_ENAB); Salt reports it
  if (hadOwnGroup && !(await getGroup(name, ctx.cmd))) ret.changes[`${name} group`] = 'removed';
  ret.comment = `Removed user ${name}`;
  return ret;
}

/** Salt's `user` states through the shadow tools (useradd, usermod, userdel). */
export function userModule(): StateModule {
  return {
    name: 'user',
    available: () => needPrograms('useradd', 'usermod', 'userdel'),
    functions: {
      present: { args: presentArgs, run: present },
      absent: { args: { purge: { type: 'boolean' }, force: { type: 'boolean' } }, run: absent },
    },
  };
}
