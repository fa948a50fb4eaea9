import type { ArgSpec, StateContext, StateModule, StateReturn } from '@brine/core';
import { forgetAccounts, getUser, type PasswdEntry } from '../util/accounts.js';
import { authKeys, checkKey, KEY_LINE, parseKeys, rmAuthKey, setAuthKey, SshError, type AuthKey } from '@brine/exec';

/** Salt's `ssh_auth` states: keys in a user's authorized_keys file. */

interface KeyArgs {
  user: string;
  name: string;
  enc: string;
  comment: string;
  options: string[] | null;
  source: string;
  config: string;
  hashType: string | null;
}

function readArgs(a: Record<string, unknown>): KeyArgs {
  return {
    user: String(a.user),
    name: String(a.name),
    enc: a.enc === undefined || a.enc === null ? 'ssh-rsa' : String(a.enc),
    comment: a.comment === undefined || a.comment === null ? '' : String(a.comment),
    options: Array.isArray(a.options) ? a.options.map(String) : typeof a.options === 'string' ? [a.options] : null,
    source: a.source === undefined || a.source === null ? '' : String(a.source),
    config: a.config === undefined || a.config === null ? '.ssh/authorized_keys' : String(a.config),
    hashType: typeof a.fingerprint_hash_type === 'string' ? a.fingerprint_hash_type : null,
  };
}

/**
 * A name holding a whole key line sets the options, type, key and comment from it. `limit`
 * keeps the comment's own spaces (Salt splits at most twice in some paths, fully in others).
 */
function splitName(k: KeyArgs, limit: boolean): KeyArgs {
  const m = KEY_LINE.exec(k.name);
  const out = { ...k };
  if (!m) {
    const parts = k.name.trim().split(/\s+/);
    if (limit) {
      const first = k.name.trim().match(/^(\S+)(?:\s+([\s\S]+))?$/);
      out.name = first?.[1] ?? '';
      if (first?.[2] !== undefined) out.comment = first[2];
    } else {
      out.name = parts[0] ?? '';
      if (parts.length === 2) out.comment = parts[1]!;
    }
    return out;
  }
  if (m[1]) out.options = m[1].split(',');
  const comps = m[2]!.trim().split(/\s+/);
  if (limit && comps.length > 3) comps.splice(2, comps.length - 2, m[2]!.trim().split(/\s+/).slice(2).join(' '));
  out.enc = comps[0]!;
  out.name = comps[1]!;
  if (comps.length === 3) out.comment = comps[2]!;
  return out;
}

async function sourceKeys(ctx: StateContext, k: KeyArgs): Promise<Map<string, AuthKey> | undefined> {
  const data = await ctx.files.get(k.source, String(ctx.low.__env__ ?? 'base'));
  return data === undefined ? undefined : parseKeys(data.toString('utf8'), k.hashType);
}

async function userOf(name: string, ctx: StateContext): Promise<PasswdEntry | undefined> {
  forgetAccounts();
  return getUser(name, ctx.cmd);
}

function missingUser(k: KeyArgs): never {
  throw new SshError(`User '${k.user}' does not exist`);
}

async function presentTest(ctx: StateContext, k: KeyArgs, user: PasswdEntry | undefined): Promise<[boolean | null, string]> {
  if (k.source) {
    const keys = await sourceKeys(ctx, k);
    if (keys && keys.size === 0) return [false, `No keys detected in ${k.source}. Is file properly formatted?`];
    if (keys) {
      let comment = '';
      for (const [key, info] of keys) {
        const status = user ? await checkKey(user, key, info.enc, info.comment, info.options, k.config, k.hashType) : missingUser(k);
        if (status !== 'exists') comment += `Set to ${status}: ${key}\n`;
      }
      if (comment) return [null, comment];
    }
    return [true, `All host keys in file ${k.source} are already present`];
  }
  const s = splitName(k, false);
  const status = user ? await checkKey(user, s.name, s.enc, s.comment, s.options ?? [], s.config, s.hashType) : missingUser(k);
  if (status === 'update') return [null, `Key ${s.name} for user ${s.user} is set to be updated`];
  if (status === 'add') return [null, `Key ${s.name} for user ${s.user} is set to be added`];
  return [true, `The authorized host key ${s.name} is already present for user ${s.user}`];
}

async function absentTest(ctx: StateContext, k: KeyArgs, user: PasswdEntry | undefined): Promise<[boolean | null, string]> {
  if (k.source) {
    const keys = await sourceKeys(ctx, k);
    if (keys && keys.size === 0) return [false, `No keys detected in ${k.source}. Is file properly formatted?`];
    if (keys) {
      let comment = '';
      for (const [key, info] of keys) {
        const status = user ? await checkKey(user, key, info.enc, info.comment, info.options, k.config, k.hashType) : missingUser(k);
        if (status !== 'add') comment += `Set to remove: ${key}\n`;
      }
      if (comment) return [null, comment];
    }
    return [true, `All host keys in file ${k.source} are already absent`];
  }
  const s = splitName(k, false);
  const status = user ? await checkKey(user, s.name, s.enc, s.comment, s.options ?? [], s.config, s.hashType) : missingUser(k);
  if (status === 'add') return [true, 'Key is already absent'];
  return [null, `Key ${s.name} for user ${s.user} is set for removal`];
}

async function present(a: Record<string, unknown>, ctx: StateContext): Promise<StateReturn> {
  let k = readArgs(a);
  if (!k.source) k = splitName(k, true);
  const ret: StateReturn = { name: k.name, changes: {}, result: true, comment: '' };
  const user = await userOf(k.user, ctx);
  const old = user ? (await authKeys(user, k.config, k.hashType)).get(k.name) : undefined;
  ret.old_state = old ? { user: k.user, name: k.name, enc: old.enc, comment: old.comment, options: old.options } : null;
  ret.new_state = { user: k.user, name: k.name, enc: k.enc, comment: k.comment, options: k.options ?? [] };
  if (ctx.test) {
    [ret.result, ret.comment] = await presentTest(ctx, { ...k, options: k.options ?? [] }, user);
    return ret;
  }
  let data: string;
  let sourceError: string | undefined;
  if (k.source) {
    const keys = await sourceKeys(ctx, k);
    if (!keys) data = 'no key';
    else if (keys.size === 0) {
      data = 'fail';
      sourceError = `No keys detected in ${k.source}. Is file properly formatted?`;
    } else {
      const results: string[] = [];
      for (const [key, info] of keys) results.push(await setAuthKey(user, key, info.enc, info.comment, k.options ?? info.options, k.config, k.hashType));
      data = results.includes('fail') ? 'fail' : results.includes('replace') ? 'replace' : results.includes('new') ? 'new' : 'no change';
    }
  } else {
    data = await setAuthKey(user, k.name, k.enc, k.comment, k.options ?? [], k.config, k.hashType);
  }
  if (data === 'replace') return { ...ret, changes: { [k.name]: 'Updated' }, comment: `The authorized host key ${k.name} for user ${k.user} was updated` };
  if (data === 'no change') return { ...ret, comment: `The authorized host key ${k.name} is already present for user ${k.user}` };
  if (data === 'new') return { ...ret, changes: { [k.name]: 'New' }, comment: `The authorized host key ${k.name} for user ${k.user} was added` };
  if (data === 'no key') return { ...ret, result: false, comment: `Failed to add the ssh key. Source file ${k.source} is missing` };
  if (data === 'fail') {
    return { ...ret, result: false, comment: sourceError ?? 'Failed to add the ssh key. Is the home directory available, and/or does the key file exist?' };
  }
  return { ...ret, result: false, comment: 'Invalid public ssh key, most likely has spaces or invalid syntax' };
}

async function absent(a: Record<string, unknown>, ctx: StateContext): Promise<StateReturn> {
  let k = readArgs(a);
  const ret: StateReturn = { name: k.name, changes: {}, result: true, comment: '', new_state: null };
  const user = await userOf(k.user, ctx);
  if (ctx.test) {
    [ret.result, ret.comment] = await absentTest(ctx, { ...k, options: k.options ?? [] }, user);
    return ret;
  }
  if (!user) missingUser(k);
  if (k.source) {
    const keys = await sourceKeys(ctx, k);
    // as Salt: a source the file server does not have removes nothing, with an empty comment
    if (!keys) return ret;
    if (keys.size === 0) ret.comment = 'fail';
    else {
      let all = '';
      for (const key of keys.keys()) all += await rmAuthKey(user, key, k.config, k.hashType);
      ret.comment = all.includes('Key not removed') ? 'Key not removed' : all.includes('Key removed') ? 'Key removed' : 'Key not present';
    }
  } else {
    k = splitName(k, false);
    ret.old_state = { user: k.user, name: k.name };
    ret.comment = await rmAuthKey(user, k.name, k.config, k.hashType);
  }
  if (ret.comment === 'User authorized keys file not present') return { ...ret, result: false };
  if (ret.comment === 'Key removed') ret.changes[k.name] = 'Removed';
  return ret;
}

/** Salt reports the module's errors as the state's failure with the error as comment. */
function guarded(fn: (a: Record<string, unknown>, ctx: StateContext) => Promise<StateReturn>) {
  return async (a: Record<string, unknown>, ctx: StateContext): Promise<StateReturn> => {
    try {
      return await fn(a, ctx);
    } catch (e) {
      if (!(e instanceof SshError)) throw e;
      return { name: String(a.name), changes: {}, result: false, comment: `An exception occurred in this state: ${e.message}` };
    }
  };
}

const keyArgs: Record<string, ArgSpec> = {
  user: { type: 'string', required: true },
  enc: { type: 'string', default: 'ssh-rsa' },
  comment: { type: 'string', default: '' },
  source: { type: 'string', default: '' },
  options: { type: ['list', 'string'] },
  config: { type: 'string', default: '.ssh/authorized_keys' },
  fingerprint_hash_type: { type: 'string' },
};

export function sshAuthModule(): StateModule {
  return {
    name: 'ssh_auth',
    available: () => ({ available: true }),
    functions: {
      present: { args: keyArgs, extraArgs: true, run: guarded(present) },
      absent: { args: keyArgs, run: guarded(absent) },
    },
  };
}
