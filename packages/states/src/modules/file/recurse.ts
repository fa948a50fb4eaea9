import { existsSync, lstatSync, readdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import type { ArgSpec, StateContext, StateReturn } from '@brine/core';
import { asBool } from '../../util/args.js';
import { normaliseMode, resolveOwnership } from '../../util/fs-meta.js';
import { mkdir, rm, chmod, chown } from '../../util/sync-fs.js';
import { failed, start } from './common.js';
import { includeExclude } from './include-exclude.js';
import { directory } from './directory.js';
import { managed } from './managed.js';

export const recurseArgs: Record<string, ArgSpec> = {
  source: { type: ['string', 'list'], required: true },
  keep_source: { type: 'boolean' },
  clean: { type: 'boolean' },
  require: { type: 'list' },
  user: { type: ['string', 'number'] },
  group: { type: ['string', 'number'] },
  dir_mode: { type: ['string', 'number'] },
  file_mode: { type: ['string', 'number'] },
  sym_mode: { type: ['string', 'number'] },
  template: { type: 'string' },
  context: { type: 'dict' },
  defaults: { type: 'dict' },
  replace: { type: 'boolean' },
  include_empty: { type: 'boolean' },
  backup: { type: 'string' },
  include_pat: { type: ['string', 'list'] },
  exclude_pat: { type: ['string', 'list'] },
  maxdepth: { type: 'number' },
  keep_symlinks: { type: 'boolean' },
  force_symlinks: { type: 'boolean' },
  saltenv: { type: 'string' },
  mode: { type: 'any' },
};

/** Salt's file.recurse parameters Brine does not take; with recurseArgs, `mode` and `makedirs`, not passed on to each file. */
const NOT_PASSED = new Set(['name', 'makedirs', 'win_owner', 'win_perms', 'win_deny_perms', 'win_inheritance']);

/** The state's other keyword arguments: Salt passes them to file.managed for each file (template variables). */
function passKwargs(args: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(args).filter(([k]) => !NOT_PASSED.has(k) && !(k in recurseArgs)));
}

function validRel(rel: string, maxdepth?: number): boolean {
  if (rel.split('/').includes('..')) return false;
  return maxdepth === undefined || rel.split('/').length - 1 <= maxdepth;
}

/** Paths the required file states manage (Salt's _gen_keep_files, for plain paths). */
function requiredKeep(ctx: StateContext, require: unknown): string[] {
  const out: string[] = [];
  for (const r of Array.isArray(require) ? require : []) {
    if (!r || typeof r !== 'object' || !('file' in r)) continue;
    const ref = String((r as Record<string, unknown>).file);
    for (const low of ctx.lowstate) if (low.name === ref || low.__id__ === ref) out.push(String(low.name));
  }
  return out;
}

/** file.recurse: a salt:// folder copied onto a local one, file by file through file.managed. */
export async function recurse(args: Record<string, unknown>, ctx: StateContext): Promise<StateReturn> {
  const name = String(args.name ?? '');
  const ret = start(name);
  if (args.mode !== undefined) return failed(ret, "'mode' is not allowed in 'file.recurse'. Please use 'file_mode' and 'dir_mode'.");
  let dirMode: string | undefined;
  let fileMode: string | undefined;
  try {
    dirMode = normaliseMode(args.dir_mode);
    fileMode = typeof args.file_mode === 'string' && args.file_mode.toLowerCase() === 'keep' ? undefined : normaliseMode(args.file_mode);
  } catch (e) {
    return failed(ret, (e as Error).message);
  }
  const own = await resolveOwnership(args.user, args.group, ctx.cmd, ctx.test);
  if (own.error) return failed(ret, own.error);
  if (!name.startsWith('/')) return failed(ret, `Specified file ${name} is not an absolute path`);
  const sources = (Array.isArray(args.source) ? args.source.map(String) : [String(args.source)]).map((s) => s.replace(/\/+$/, ''));
  for (const s of sources) if (!s.startsWith('salt://')) return failed(ret, `Invalid source '${s}' (must be a salt:// URI)`);
  if (!ctx.files.list) return failed(ret, 'Recurse failed: this minion cannot list the salt:// file server');
  const env = typeof args.saltenv === 'string' ? args.saltenv : (ctx.low.__env__ ?? 'base');
  const found = await firstSource(ctx, sources, env);
  if (!found) return failed(ret, 'Recurse failed: none of the specified sources were found');
  const { srcpath, listed, senv } = found;
  const st = existsSync(name) ? statSync(name) : undefined;
  if (st && !st.isDirectory()) return failed(ret, `The path ${name} exists and is not a directory`);
  if (!st && !ctx.test) {
    await mkdir(name, { recursive: true });
    if (dirMode) await chmod(name, parseInt(dirMode, 8));
    if (own.uid !== undefined || own.gid !== undefined) await chown(name, own.uid ?? -1, own.gid ?? -1);
  }

  const comments = new Map<string, string[]>();
  const addComment = (path: string, c: string | string[]) => {
    const list = comments.get(path) ?? [];
    list.push(...(Array.isArray(c) ? c : [c]));
    comments.set(path, list);
  };
  const changes: Record<string, unknown> = {};
  const merge = (path: string, r: StateReturn) => {
    if (r.result === false || ret.result === true) ret.result = r.result;
    if (r.result !== true && r.comment) addComment(path, r.comment);
    if (Object.keys(r.changes).length) changes[path] = r.changes;
  };

  const prefix = `${srcpath.replace(/\/+$/, '')}/`;
  const clean = asBool(args.clean);
  const maxdepth = typeof args.maxdepth === 'number' ? args.maxdepth : undefined;
  const include = args.include_pat as string | string[] | undefined;
  const exclude = args.exclude_pat as string | string[] | undefined;
  const { keep, dirs, files } = destinations(listed, prefix, name, senv, maxdepth, include, exclude);
  const sub = (extra: Record<string, unknown>) => ({ ...ctx, low: { ...ctx.low, ...extra } });
  await makeDirs(ctx, args, { name, dirs, clean, dirMode }, merge);
  const replace = args.replace !== false;
  for (const [dest, src] of files) {
    if (clean && replace && existsSync(dest) && lstatSync(dest).isDirectory()) {
      if (ctx.test) {
        merge(dest, { name, changes: {}, result: null, comment: `Replacing directory ${dest} with a file` });
        continue;
      }
      await rm(dest, { recursive: true, force: true });
      merge(dest, { name, changes: { diff: 'Replaced directory with a new file' }, result: true, comment: '' });
    }
    const r = await managed(
      {
        ...passKwargs(args),
        name: dest,
        source: src,
        saltenv: senv,
        user: args.user,
        group: args.group,
        mode: fileMode,
        template: args.template,
        makedirs: true,
        replace,
        context: args.context,
        defaults: args.defaults,
      },
      sub({ name: dest }),
    );
    merge(dest, r);
  }
  if (clean) {
    for (const k of requiredKeep(ctx, args.require)) keep.add(k);
    const removed = extraPaths(name, keep, exclude, ctx.test);
    if (removed.length) {
      if (ctx.test) {
        if (ret.result) ret.result = null;
        addComment('removed', removed);
      } else changes.removed = removed;
    }
  }
  return summarise(ret, name, comments, changes);
}

/** Makes each destination directory through file.directory (replacing a file in the way when cleaning). */
async function makeDirs(
  ctx: StateContext,
  args: Record<string, unknown>,
  d: { name: string; dirs: string[]; clean: boolean; dirMode: string | undefined },
  merge: (path: string, r: StateReturn) => void,
): Promise<void> {
  const { name, dirs, clean, dirMode } = d;
  const sub = (extra: Record<string, unknown>) => ({ ...ctx, low: { ...ctx.low, ...extra } });
  for (const dir of dirs) {
    if (clean && existsSync(dir) && !lstatSync(dir).isDirectory()) {
      if (ctx.test) {
        merge(dir, { name, changes: {}, result: null, comment: `Replacing ${dir} with a directory` });
        continue;
      }
      await rm(dir, { force: true });
      merge(dir, { name, changes: { diff: 'Replaced file with a directory' }, result: true, comment: '' });
    }
    const r = await directory({ name: dir, user: args.user, group: args.group, dir_mode: dirMode, makedirs: true }, sub({ name: dir }));
    // Salt makes a new directory with its mode in one go: only {directory: new} is reported.
    if (!ctx.test && (r.changes[dir] as Record<string, unknown> | undefined)?.directory === 'new') delete r.changes.mode;
    merge(dir, r);
  }
}

/** The state's changes, and its comment from the comments per path. */
function summarise(ret: StateReturn, name: string, comments: Map<string, string[]>, changes: Record<string, unknown>): StateReturn {
  ret.changes = changes;
  ret.comment = [...comments]
    .map(([k, v]) => `\n#### ${k} ####\n${v.join('\n')}`)
    .join('\n')
    .trim();
  if (!ret.comment) ret.comment = `Recursively updated ${name}`;
  if (!Object.keys(changes).length && ret.result) ret.comment = `The directory ${name} is in the correct state`;
  return ret;
}

/** The first source the file server lists files under: its path, the files and their saltenv. */
async function firstSource(ctx: StateContext, sources: string[], env: string): Promise<{ srcpath: string; listed: string[]; senv: string } | undefined> {
  for (const s of sources) {
    const [path, query] = s.slice('salt://'.length).split('?', 2);
    const e = query ? (new URLSearchParams(query).get('saltenv') ?? env) : env;
    const files = await ctx.files.list!(path!, e);
    if (files.length) return { srcpath: path!, listed: files, senv: e };
  }
  return undefined;
}

/** The local file for each listed source file (within maxdepth and the patterns), and their directories. */
function destinations(
  listed: string[],
  prefix: string,
  name: string,
  senv: string,
  maxdepth: number | undefined,
  include: string | string[] | undefined,
  exclude: string | string[] | undefined,
): { keep: Set<string>; dirs: string[]; files: Array<[string, string]> } {
  const keep = new Set<string>();
  const dirs: string[] = [];
  const files: Array<[string, string]> = [];
  for (const fn of listed) {
    if (!fn.startsWith(prefix)) continue;
    const rel = fn.slice(prefix.length);
    if (!validRel(rel, maxdepth) || !includeExclude(rel, include, exclude)) continue;
    const dest = join(name, rel);
    keep.add(dest);
    if (!dirs.includes(dirname(dest))) dirs.push(dirname(dest));
    files.push([dest, `salt://${fn}?saltenv=${senv}`]);
  }
  return { keep, dirs, files };
}

/** The paths under `name` that clean removes (removed now unless in test mode). */
function extraPaths(name: string, keep: Set<string>, exclude: string | string[] | undefined, test: boolean): string[] {
  const realKeep = new Set<string>([name]);
  for (const k of keep) for (let p = k; p !== '/' && p !== '.'; p = dirname(p)) realKeep.add(p);
  const removed: string[] = [];
  const walk = (dir: string) => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    const subdirs: string[] = [];
    for (const e of [...entries.filter((x) => x.isDirectory()), ...entries.filter((x) => !x.isDirectory())]) {
      const p = join(dir, e.name);
      if (e.isDirectory()) subdirs.push(p);
      if (realKeep.has(p) || !includeExclude(relative(name, p), undefined, exclude)) continue;
      removed.push(p);
      if (!test) rmSyncQuiet(p);
    }
    for (const d of subdirs) walk(d);
  };
  walk(name);
  return removed;
}

function rmSyncQuiet(p: string): void {
  rmSync(p, { recursive: true, force: true });
}
