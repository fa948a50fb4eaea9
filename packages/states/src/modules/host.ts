import type { ArgSpec, StateModule, StateReturn } from '@brine/core';
import { addHost, entryOf, getAlias, hasPair, listHosts, rmHost, setComment, setHost, validIp } from '@brine/exec';

/** Salt's `host` states (present, absent, only) on the hosts file. */

export interface HostModuleOptions {
  /** The hosts file (Salt's `hosts.file` option; default /etc/hosts). */
  hostsFile?: string;
}

function ipList(v: unknown): string[] {
  return Array.isArray(v) ? v.map(String) : [String(v)];
}

function push(changes: Record<string, unknown>, kind: string, addr: string, value: string): void {
  const byAddr = (changes[kind] ??= {}) as Record<string, string[]>;
  (byAddr[addr] ??= []).push(value);
}

async function present(file: string, a: Record<string, unknown>, test: boolean): Promise<StateReturn> {
  const name = String(a.name);
  const ips = ipList(a.ip);
  const comment = typeof a.comment === 'string' ? a.comment : a.comment ? String(a.comment) : '';
  const clean = a.clean === true;
  const ret: StateReturn = { name, changes: {}, result: true, comment: '' };
  const table = await listHosts(file);
  const comments: string[] = [];
  const toAdd: Array<[string, string]> = [];
  const toRemove: Array<[string, string]> = [];
  const updateComment: Array<[string, string]> = [];
  const addOnce = (list: Array<[string, string]>, pair: [string, string]) => {
    if (!list.some(([x, y]) => x === pair[0] && y === pair[1])) list.push(pair);
  };
  for (const addr of ips) {
    if (!table.has(addr)) {
      addOnce(toAdd, [addr, name]);
      if (comment) addOnce(updateComment, [addr, comment]);
    }
  }
  const warnings: string[] = [];
  for (const addr of table.keys()) {
    const info = entryOf(table, addr);
    const named = info?.aliases.includes(name) ?? false;
    if (!ips.includes(addr)) {
      if (!named) continue;
      if (clean) addOnce(toRemove, [addr, name]);
      else
        warnings.push(
          `Host ${name} present for IP address ${addr}. To get rid of this warning, either run this state with 'clean' set to True to remove ${name} from ${addr}, or add ${addr} to the 'ip' argument.`,
        );
    } else if (named) {
      if (comment && info!.comment !== comment) addOnce(updateComment, [addr, comment]);
      else comments.push(`Host ${name} (${addr}) already present`);
    } else if (validIp(addr)) {
      addOnce(toAdd, [addr, name]);
      if (comment) addOnce(updateComment, [addr, comment]);
    } else {
      ret.result = false;
      comments.push(`Invalid IP Address for ${name} (${addr})`);
    }
  }
  if (warnings.length) ret.warnings = warnings;
  for (const [addr, host] of toAdd) {
    if (test) {
      ret.result = null;
      comments.push(`Host ${host} (${addr}) would be added`);
    } else if (await addHost(file, addr, host)) {
      comments.push(`Added host ${host} (${addr})`);
    } else {
      ret.result = false;
      comments.push(`Failed to add host ${host} (${addr})`);
      continue;
    }
    push(ret.changes, 'added', addr, host);
  }
  for (const [addr, text] of updateComment) {
    if (test) comments.push(`Comment for ${addr} (${text}) would be added`);
    else if (await setComment(file, addr, text)) comments.push(`Set comment for host ${addr} (${text})`);
    else {
      ret.result = false;
      comments.push(`Failed to add comment for host ${addr} (${text})`);
      continue;
    }
    push(ret.changes, 'comment_added', addr, text);
  }
  for (const [addr, host] of toRemove) {
    if (test) {
      ret.result = null;
      comments.push(`Host ${host} (${addr}) would be removed`);
    } else if (await rmHost(file, addr, host)) {
      comments.push(`Removed host ${host} (${addr})`);
    } else {
      ret.result = false;
      comments.push(`Failed to remove host ${host} (${addr})`);
      continue;
    }
    push(ret.changes, 'removed', addr, host);
  }
  ret.comment = comments.join('\n');
  return ret;
}

async function absent(file: string, a: Record<string, unknown>, test: boolean): Promise<StateReturn> {
  const name = String(a.name);
  const ret: StateReturn = { name, changes: {}, result: null, comment: '' };
  const comments: string[] = [];
  for (const ip of ipList(a.ip)) {
    if (!(await hasPair(file, ip, name))) {
      ret.result = true;
      comments.push(`Host ${name} (${ip}) already absent`);
    } else if (test) {
      comments.push(`Host ${name} (${ip}) needs to be removed`);
    } else if (await rmHost(file, ip, name)) {
      ret.changes = { host: name };
      ret.result = true;
      comments.push(`Removed host ${name} (${ip})`);
    } else {
      ret.result = false;
      comments.push('Failed to remove host');
    }
  }
  ret.comment = comments.join('\n');
  return ret;
}

async function only(file: string, a: Record<string, unknown>, test: boolean): Promise<StateReturn> {
  const name = String(a.name);
  const hostnames = typeof a.hostnames === 'string' ? [a.hostnames] : Array.isArray(a.hostnames) ? a.hostnames.map(String) : [];
  const old = (await getAlias(file, name)).join(' ');
  const want = hostnames.map((h) => h.trim()).join(' ');
  const state = (aliases: string) => ({ name, hostnames: aliases ? aliases.split(' ') : [] });
  const ret: StateReturn = { name, changes: {}, result: null, comment: '', old_state: state(old), new_state: state(want) };
  if (old === want) return { ...ret, result: true, comment: `IP address ${name} already set to "${want}"` };
  if (test) return { ...ret, comment: `Would change ${name} from "${old}" to "${want}"` };
  if (!(await setHost(file, name, want))) {
    return { ...ret, result: false, comment: `hosts.set_host failed to change ${name} from "${old}" to "${want}"` };
  }
  return { ...ret, result: true, comment: `successfully changed ${name} from "${old}" to "${want}"`, changes: { [name]: { old, new: want } } };
}

const presentArgs: Record<string, ArgSpec> = {
  ip: { type: ['string', 'list'], required: true },
  comment: { type: 'string', default: '' },
  clean: { type: 'boolean', default: false },
};

/** The host's names for an IP list, before and after (the resource contract). */
async function namesFor(file: string, name: string, ips: unknown) {
  const table = await listHosts(file);
  const ip = ipList(ips).filter((addr) => entryOf(table, addr)?.aliases.includes(name));
  return { name, ip };
}

export function hostModule(options: HostModuleOptions = {}): StateModule {
  const file = options.hostsFile ?? '/etc/hosts';
  return {
    name: 'host',
    available: () => ({ available: true }),
    functions: {
      present: {
        args: presentArgs,
        async run(a, ctx) {
          const old = await namesFor(file, String(a.name), a.ip);
          const ret = await present(file, a, ctx.test);
          return { ...ret, old_state: old, new_state: ctx.test ? { name: a.name, ip: ipList(a.ip) } : await namesFor(file, String(a.name), a.ip) };
        },
      },
      absent: {
        args: { ip: { type: ['string', 'list'], required: true } },
        async run(a, ctx) {
          const old = await namesFor(file, String(a.name), a.ip);
          const ret = await absent(file, a, ctx.test);
          return { ...ret, old_state: old, new_state: { name: a.name, ip: [] } };
        },
      },
      only: {
        args: { hostnames: { type: ['string', 'list'], required: true } },
        run: (a, ctx) => only(file, a, ctx.test),
      },
    },
  };
}
