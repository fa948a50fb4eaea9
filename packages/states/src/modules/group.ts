import type { ArgSpec, StateContext, StateModule, StateReturn } from '@brine/core';
import { forgetAccounts, getGroup, getUser, type GroupEntry } from '../util/accounts.js';
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

async function present(args: Record<string, unknown>, ctx: StateContext): Promise<StateReturn> {
  const name = String(args.name);
  const ret: StateReturn = { name, changes: {}, result: true, comment: '' };
  if (args.members !== undefined && (args.addusers !== undefined || args.delusers !== undefined)) {
    return { ...ret, result: false, comment: 'Error. Members argument is mutually exclusive with addusers/delusers' };
  }
  const members = args.members !== undefined ? asList(args.members).sort() : undefined;
  for (const u of [...(members ?? []), ...asList(args.addusers)]) {
    if (!(await getUser(u, ctx.cmd))) return { ...ret, result: false, comment: `User ${u} is not available` };
  }
  let group = await getGroup(name, ctx.cmd);
  ret.old_state = groupState(group);
  const changes: Record<string, unknown> = {};

  if (!group) {
    if (ctx.test) {
      ret.result = null;
      ret.changes = { [name]: 'new' };
      ret.comment = `Group ${name} set to be added`;
      return ret;
    }
    const argv = ['groupadd'];
    if (args.gid !== undefined) argv.push('-g', String(args.gid));
    if (asBool(args.system)) argv.push('-r');
    const r = await ctx.cmd.run([...argv, name]);
    forgetAccounts();
    if (r.retcode !== 0) return { ...ret, result: false, comment: `Failed to create new group ${name}: ${r.stderr || r.stdout}` };
    group = await getGroup(name, ctx.cmd);
    if (!group) return { ...ret, result: false, comment: `Failed to create new group ${name}` };
  } else if (args.gid !== undefined && Number(args.gid) !== group.gid) {
    changes.gid = Number(args.gid);
  }
  const current = [...group.members].sort();
  let wantMembers: string[] | undefined = members;
  if (!wantMembers && (args.addusers !== undefined || args.delusers !== undefined)) {
    const del = new Set(asList(args.delusers));
    wantMembers = [...new Set([...current, ...asList(args.addusers)])].filter((u) => !del.has(u)).sort();
  }
  if (wantMembers && wantMembers.join(',') !== current.join(',')) changes.members = wantMembers;
  const isNew = ret.old_state === null;
  if (!isNew && !Object.keys(changes).length) {
    ret.comment = `Group ${name} is present and up to date`;
    ret.new_state = ret.old_state;
    return ret;
  }
  if (ctx.test) {
    ret.result = null;
    ret.changes = changes;
    ret.comment =
      'The following group attributes are set to be changed:\n' +
      Object.entries(changes)
        .map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join(',') : String(v)}\n`)
        .join('');
    return ret;
  }
  if (changes.gid !== undefined) {
    const r = await ctx.cmd.run(['groupmod', '-g', String(changes.gid), name]);
    if (r.retcode !== 0) return { ...ret, result: false, comment: `Failed to change the gid of group ${name}: ${r.stderr}` };
  }
  if (changes.members !== undefined) {
    const r = await ctx.cmd.run(['gpasswd', '-M', (changes.members as string[]).join(','), name]);
    if (r.retcode !== 0) return { ...ret, result: false, comment: `Failed to set the members of group ${name}: ${r.stderr}` };
  }
  forgetAccounts();
  const now = groupState(await getGroup(name, ctx.cmd));
  ret.new_state = now;
  if (isNew) {
    ret.changes = now ?? { name };
    ret.comment = `New group ${name} created`;
  } else {
    ret.changes = changes;
    ret.comment = `Updated group ${name}`;
  }
  return ret;
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
