import type { ExecFunction } from '../function.js';
import { groupList, groups, passwd } from '../host/accounts.js';

/** Salt's useradd and groupadd modules: the read-only functions. */
export const userFunctions: ExecFunction[] = [
  {
    name: 'user.info',
    doc: 'The account of the named user (uid, gid, groups, home, shell, GECOS fields), or {} when there is none.',
    params: [
      { name: 'name', type: 'string', required: true },
      { name: 'root', type: 'string' },
    ],
    run: async (a, ctx) => {
      const u = (await passwd(ctx.cmd, a.name as string)).find((e) => e.name === a.name);
      if (!u) return { return: {} };
      const gecos = u.gecos.split(',');
      const rest = gecos.length > 4 ? gecos.slice(4).join(',') : '';
      while (gecos.length < 5) gecos.push('');
      return {
        return: {
          gid: u.gid,
          groups: await groupList(ctx.cmd, u),
          home: u.home,
          name: u.name,
          passwd: u.passwd,
          shell: u.shell,
          uid: u.uid,
          fullname: gecos[0],
          roomnumber: gecos[1],
          workphone: gecos[2],
          homephone: gecos[3],
          other: rest || gecos[4],
        },
      };
    },
  },
  {
    name: 'user.list_users',
    doc: 'The names of every user, sorted.',
    params: [{ name: 'root', type: 'string' }],
    run: async (_a, ctx) => ({ return: (await passwd(ctx.cmd)).map((u) => u.name).sort() }),
  },
  {
    name: 'user.list_groups',
    doc: 'The groups of the named user (its primary group included), sorted.',
    params: [{ name: 'name', type: 'string', required: true }],
    run: async (a, ctx) => {
      const u = (await passwd(ctx.cmd, a.name as string))[0];
      return { return: u ? await groupList(ctx.cmd, u) : [] };
    },
  },
  {
    name: 'group.info',
    doc: 'The named group (name, passwd, gid, members), or {} when there is none.',
    params: [
      { name: 'name', type: ['string', 'number'], required: true },
      { name: 'root', type: 'string' },
    ],
    run: async (a, ctx) => {
      const g = (await groups(ctx.cmd, String(a.name))).find((e) => e.name === String(a.name));
      return { return: g ? { name: g.name, passwd: g.passwd, gid: g.gid, members: g.members } : {} };
    },
  },
  {
    name: 'group.getent',
    doc: 'Every group, as group.info gives each.',
    params: [
      { name: 'refresh', type: 'any' },
      { name: 'root', type: 'string' },
    ],
    run: async (_a, ctx) => ({ return: (await groups(ctx.cmd)).map((g) => ({ name: g.name, passwd: g.passwd, gid: g.gid, members: g.members })) }),
  },
];
