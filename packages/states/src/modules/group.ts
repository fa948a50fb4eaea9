import type { ArgSpec, StateContext, StateModule, StateReturn } from '@brine/core';
import { forgetAccounts, getGroup, type GroupEntry } from '../util/accounts.js';
import { asBool, asList } from '../util/args.js';
import { needPrograms } from '../util/which.js';

const presentArgs: Record<string, ArgSpec> = {
  gid: { type: ['number', 'string'] },
  system: { type: 'boolean' },
  members: { type: ['list', 'string'] },
  addusers: { type: ['list', 'string'] },
  delusers: { type: ['list', 'string'] },
};

export function groupState(g: GroupEntry | undefined): Record<string, unknown> | null {
  return g ? { name: g.name, gid: g.gid, members: [...g.members].sort() } : null;
}

/** Python's repr of a value in a change line: lists as ['a', 'b']. */
function pyRepr(v: unknown): string {
  return Array.isArray(v) ? `[${v.map((x) => `'${String(x)}'`).join(', ')}]` : String(v);
}

/** Salt's group.info: what a new group's changes show. */
function groupInfo(g: GroupEntry): Record<string, unknown> {
  return { gid: g.gid, members: [...g.members], name: g.name, passwd: g.passwd };
}

/** Salt's _changes: what differs from the wanted gid and members, by argument. */
function groupChanges(g: GroupEntry, args: Record<string, unknown>): Record<string, unknown> {
  const change: Record<string, unknown> = {};
  if (args.gid !== undefined && args.gid !== null && args.gid !== '' && Number(args.gid) !== g.gid) change.gid = Number(args.gid);
  const have = new Set(g.members);
  if (args.members !== undefined && args.members !== null) {
    const members = asList(args.members);
    const differ = members.some((m) => !have.has(m)) || g.members.some((m) => !members.includes(m));
    if (differ) {
      if (members.length === 0) change.delusers = [...g.members];
      else change.members = members;
    }
  }
  const add = asList(args.addusers).filter((u) => !have.has(u));
  if (add.length) change.addusers = add;
  const del = asList(args.delusers).filter((u) => have.has(u));
  if (del.length) change.delusers = del;
  return change;
}

async function present(args: Record<string, unknown>, ctx: StateContext): Promise<StateReturn> {
  const name = String(args.name);
  const ret: StateReturn = { name, changes: {}, result: true, comment: `Group ${name} is present and up to date` };
  if (args.members !== undefined && (args.addusers !== undefined || args.delusers !== undefined)) {
    return { ...ret, result: null, comment: 'Error: Conflicting options "members" with "addusers" and/or "delusers" can not be used together. ' };
  }
  const adding = asList(args.addusers);
  if (adding.length && asList(args.delusers).some((u) => adding.includes(u))) {
    return { ...ret, result: null, comment: 'Error. Same user(s) can not be added and deleted simultaneously' };
  }
  let group = await getGroup(name, ctx.cmd);
  ret.old_state = groupState(group);

  if (group) {
    const changes = groupChanges(group, args);
    if (!Object.keys(changes).length) {
      ret.new_state = ret.old_state;
      return ret;
    }
    ret.comment =
      'The following group attributes are set to be changed:\n' +
      Object.entries(changes)
        .map(([k, v]) => `${k}: ${pyRepr(v)}\n`)
        .join('');
    if (ctx.test) return { ...ret, result: null };
    for (const [key, val] of Object.entries(changes)) {
      if (key === 'gid') await ctx.cmd.run(['groupmod', '-g', String(val), name]);
      else if (key === 'addusers') for (const u of val as string[]) await ctx.cmd.run(['gpasswd', '-a', u, name]);
      else if (key === 'delusers') for (const u of val as string[]) await ctx.cmd.run(['gpasswd', '-d', u, name]);
      else if (key === 'members') await ctx.cmd.run(['gpasswd', '-M', asList(args.members).join(','), name]);
    }
    forgetAccounts();
    group = await getGroup(name, ctx.cmd);
    ret.new_state = groupState(group);
    const left = group ? groupChanges(group, args) : changes;
    if (Object.keys(left).length) return { ...ret, result: false, comment: `${ret.comment}Some changes could not be applied`, changes: { Failed: left } };
    return { ...ret, changes: { Final: 'All changes applied successfully' } };
  }

  if (ctx.test) return { ...ret, result: null, comment: `Group ${name} set to be added` };
  if (args.gid !== undefined && args.gid !== null) {
    const taken = await getGroup(Number(args.gid), ctx.cmd);
    if (taken) return { ...ret, result: false, comment: `Group ${name} is not present but gid ${String(args.gid)} is already taken by group ${taken.name}` };
  }
  const argv = ['groupadd'];
  if (args.gid !== undefined && args.gid !== null) argv.push('-g', String(args.gid));
  if (asBool(args.system)) argv.push('-r');
  const r = await ctx.cmd.run([...argv, name]);
  forgetAccounts();
  if (r.retcode !== 0) return { ...ret, result: false, comment: `Failed to create new group ${name}` };
  const initial = args.addusers !== undefined ? adding : args.members !== undefined ? asList(args.members) : [];
  if (initial.length) {
    await ctx.cmd.run(['gpasswd', '-M', initial.join(','), name]);
    forgetAccounts();
  }
  group = await getGroup(name, ctx.cmd);
  ret.new_state = groupState(group);
  if (!group) return { ...ret, result: false, comment: `Failed to create new group ${name}` };
  const left = groupChanges(group, args);
  if (Object.keys(left).length)
    return { ...ret, result: false, comment: `Group ${name} has been created but, some changes could not be applied`, changes: { Failed: left } };
  return { ...ret, comment: `New group ${name} created`, changes: groupInfo(group) };
}

async function absent(args: Record<string, unknown>, ctx: StateContext): Promise<StateReturn> {
  const name = String(args.name);
  const ret: StateReturn = { name, changes: {}, result: true, comment: '', new_state: null };
  const group = await getGroup(name, ctx.cmd);
  ret.old_state = groupState(group);
  if (!group) {
    ret.comment = `Group not present`;
    return ret;
  }
  if (ctx.test) {
    ret.result = null;
    ret.changes = { [name]: '' };
    ret.comment = `Group ${name} is set for removal`;
    return ret;
  }
  const r = await ctx.cmd.run(['groupdel', name]);
  forgetAccounts();
  if (r.retcode !== 0) return { ...ret, result: false, comment: `Failed to remove group ${name}: ${r.stderr || r.stdout}` };
  ret.changes = { [name]: '' };
  ret.comment = `Removed group ${name}`;
  return ret;
}

/** Salt's `group` states through groupadd, groupmod, gpasswd, groupdel. */
export function groupModule(): StateModule {
  return {
    name: 'group',
    available: () => needPrograms('groupadd', 'groupdel', 'gpasswd'),
    functions: {
      present: { args: presentArgs, run: present },
      absent: { args: {}, run: absent },
    },
  };
}
