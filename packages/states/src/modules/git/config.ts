import type { ArgSpec, StateContext, StateFunction, StateReturn } from '@brine/core';
import { asBool } from '../../util/args.js';
import { gitError, pyStrList, runGit } from './run-git.js';

/** Salt's git.config_set and git.config_unset through `git config`. */

interface Scope {
  global: boolean;
  repo?: string;
  user?: string;
}

const scopeFlag = (s: Scope): string => (s.global ? '--global' : '--local');

async function getAll(ctx: StateContext, s: Scope, key: string): Promise<string[] | null> {
  const r = await runGit(ctx, ['config', scopeFlag(s), '--get-all', key], { cwd: s.repo, user: s.user });
  if (r.retcode === 1) return null;
  return r.stdout.split('\n').filter((l, i, all) => l !== '' || i < all.length - 1);
}

async function getRegexp(ctx: StateContext, s: Scope, key: string, valueRegex?: string): Promise<Record<string, string[]>> {
  const r = await runGit(ctx, ['config', scopeFlag(s), '--get-regexp', key, ...(valueRegex !== undefined ? [valueRegex] : [])], { cwd: s.repo, user: s.user });
  const out: Record<string, string[]> = {};
  if (r.retcode === 1) return out;
  for (const line of r.stdout.split('\n')) {
    const m = /^(\S+)\s+([\s\S]*)$/.exec(line.trim());
    if (!m) continue;
    (out[m[1]!] ??= []).push(m[2]!);
  }
  return out;
}

function scopeOf(a: Record<string, unknown>): Scope | string {
  const global = asBool(a.global);
  const repo = a.repo === undefined || a.repo === null ? undefined : String(a.repo);
  if (!global && !repo) return "Non-global config options require the 'repo' argument to be set";
  return { global, repo, user: a.user === undefined || a.user === null ? undefined : String(a.user) };
}

const fail = (name: string, comment: string, changes: Record<string, unknown> = {}): StateReturn => ({ name, result: false, changes, comment });
const sameList = (a: string[] | null, b: string[]) => a !== null && a.length === b.length && a.every((x, i) => x === b[i]);

async function configSet(a: Record<string, unknown>, ctx: StateContext): Promise<StateReturn> {
  const name = String(a.name);
  const hasValue = a.value !== undefined && a.value !== null;
  const hasMulti = a.multivar !== undefined && a.multivar !== null;
  if (hasValue && hasMulti) return fail(name, "Only one of 'value' and 'multivar' is permitted");
  const scope = scopeOf(a);
  if (typeof scope === 'string') return fail(name, scope);
  let desired: string[];
  let shown: string;
  if (hasMulti) {
    desired = Array.isArray(a.multivar) ? a.multivar.map(String) : String(a.multivar).split(',');
    shown = pyStrList(desired);
  } else {
    desired = [typeof a.value === 'boolean' ? (a.value ? 'True' : 'False') : String(a.value)];
    shown = `'${desired[0]}'`;
  }
  const g = scope.global ? 'Global key ' : '';
  const pre = await getAll(ctx, scope, name);
  const resource = (v: string[] | null) => ({ name, value: v, repo: scope.repo ?? null, global: scope.global });
  if (sameList(pre, desired)) {
    return { name, result: true, changes: {}, comment: `${g}'${name}' is already set to ${shown}`, old_state: resource(pre), new_state: resource(pre) };
  }
  const verb = pre === null ? 'added as' : 'set to';
  if (ctx.test) {
    return { name, result: null, changes: { old: pre, new: desired }, comment: `${g}'${name}' would be ${verb} ${shown}`, old_state: resource(pre) };
  }
  for (const [i, v] of desired.entries()) {
    const r = await runGit(ctx, ['config', ...(scope.global ? ['--global'] : []), i === 0 ? '--replace-all' : '--add', name, v], {
      cwd: scope.repo,
      user: scope.user,
    });
    if (r.retcode !== 0) return fail(name, `Failed to set ${g.toLowerCase()}'${name}' to ${shown}: ${gitError(r)}`);
  }
  const post = await getAll(ctx, scope, name);
  const changes: Record<string, unknown> = {};
  if (JSON.stringify(pre) !== JSON.stringify(post)) changes[name] = { old: pre, new: post };
  if (!sameList(post, desired)) return fail(name, `Failed to set ${g.toLowerCase()}'${name}' to ${shown}`, changes);
  return { name, result: true, changes, comment: `${g}'${name}' was ${verb} ${shown}`, old_state: resource(pre), new_state: resource(post) };
}

async function configUnset(a: Record<string, unknown>, ctx: StateContext): Promise<StateReturn> {
  const name = String(a.name);
  const scope = scopeOf(a);
  if (typeof scope === 'string') return fail(name, scope);
  const all = asBool(a.all);
  const valueRegex = a.value_regex === undefined || a.value_regex === null ? undefined : String(a.value_regex);
  const key = `^${name.replace(/^\^+/, '').replace(/\$+$/, '')}$`;
  const preMatches = await getRegexp(ctx, scope, key, valueRegex);
  const keys = Object.keys(preMatches);
  const none: StateReturn = { name, result: true, changes: {}, comment: 'No matching keys are set', old_state: {}, new_state: {} };
  if (keys.length === 0) return none;
  if (!all) {
    const greedy = keys.filter((k) => preMatches[k]!.length > 1).map((k) => `${k} (${preMatches[k]!.join(', ')})`);
    if (greedy.length) {
      return fail(
        name,
        valueRegex !== undefined
          ? `Multiple values are matched by value_regex for the following keys (set 'all' to True to force removal): ${greedy.join('; ')}`
          : `Multivar(s) matched by the key expression (set 'all' to True to force removal): ${greedy.join('; ')}`,
      );
    }
  }
  if (ctx.test) return { name, result: null, changes: preMatches, comment: `${keys.length} key(s) would have value(s) unset`, old_state: preMatches };
  const pre = valueRegex === undefined ? preMatches : await getRegexp(ctx, scope, key);
  const failed: string[] = [];
  for (const k of keys) {
    const r = await runGit(ctx, ['config', all ? '--unset-all' : '--unset', scopeFlag(scope), name, ...(valueRegex !== undefined ? [valueRegex] : [])], {
      cwd: scope.repo,
      user: scope.user,
    });
    if (r.retcode !== 0) failed.push(k);
  }
  if (failed.length) return fail(name, `Error(s) occurred unsetting values for the following keys (see the minion log for details): ${failed.join(', ')}`);
  const post = await getRegexp(ctx, scope, key);
  const changes: Record<string, unknown> = {};
  for (const [k, values] of Object.entries(pre)) {
    // Salt 3007 raises KeyError here when a key is gone entirely; the removed values are meant
    const left = post[k] ?? [];
    const unset = values.filter((v) => !left.includes(v));
    if (unset.length) changes[k] = unset;
  }
  const postMatches = valueRegex === undefined ? post : await getRegexp(ctx, scope, key, valueRegex);
  const still = Object.entries(postMatches).map(([k, v]) => `${k} (${v.join(', ')})`);
  if (still.length) return fail(name, `Failed to unset value(s): ${still.join('; ')}`, changes);
  return { name, result: true, changes, comment: 'Value(s) successfully unset', old_state: pre, new_state: post };
}

const common: Record<string, ArgSpec> = {
  repo: { type: 'string' },
  user: { type: 'string' },
  password: { type: 'string' },
  output_encoding: { type: 'string' },
  global: { type: 'boolean' },
};

export const configSetFn: StateFunction = {
  args: { ...common, value: { type: ['string', 'number', 'boolean'] }, multivar: { type: ['list', 'string'] } },
  run: configSet,
};

export const configUnsetFn: StateFunction = {
  args: { ...common, value_regex: { type: ['string', 'number'] }, all: { type: 'boolean' } },
  run: configUnset,
};
