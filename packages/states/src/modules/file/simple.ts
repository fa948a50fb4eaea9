import {
  readFileSync,
  copyFileSync,
  cpSync,
  existsSync,
  lstatSync,
  renameSync,
  statSync,
  symlinkSync,
  readlinkSync,
  unlinkSync,
  utimesSync,
  closeSync,
  openSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { ArgSpec, StateContext, StateReturn } from '@brine/core';
import { asBool } from '../../util/args.js';
import { enforceMeta, lstatOrUndefined, normaliseMode, resolveOwnership } from '../../util/fs-meta.js';
import { rm, mkdir } from '../../util/sync-fs.js';
import { failed, notAbsolute, pathState, start } from './common.js';

/** Salt's file.exists / file.missing: checks only, never a change. */
export async function exists(args: Record<string, unknown>): Promise<StateReturn> {
  const name = String(args.name ?? '');
  const ret = start(name);
  if (!name) return failed(ret, 'Must provide name to file.exists');
  if (!existsSync(name)) return failed(ret, `Specified path ${name} does not exist`);
  ret.comment = `Path ${name} exists`;
  return ret;
}

export async function missing(args: Record<string, unknown>): Promise<StateReturn> {
  const name = String(args.name ?? '');
  const ret = start(name);
  if (!name) return failed(ret, 'Must provide name to file.missing');
  if (existsSync(name)) return failed(ret, `Specified path ${name} exists`);
  ret.comment = `Path ${name} is missing`;
  return ret;
}

export const touchArgs: Record<string, ArgSpec> = {
  atime: { type: ['number', 'string'] },
  mtime: { type: ['number', 'string'] },
  makedirs: { type: 'boolean' },
};

/** file.touch: the file exists (created empty) and its times are now (or atime/mtime). */
export async function touch(args: Record<string, unknown>, ctx: StateContext): Promise<StateReturn> {
  const name = String(args.name ?? '');
  const ret = start(name);
  if (!name) return failed(ret, 'Must provide name to file.touch');
  const bad = notAbsolute(name);
  if (bad) return failed(ret, bad);
  const st = await lstatOrUndefined(name);
  ret.old_state = st ? await pathState(name, ctx.cmd) : null;
  const atime = args.atime ?? undefined;
  const mtime = args.mtime ?? undefined;
  if (ctx.test) {
    // Salt keeps {new: name} in changes even when it finds nothing to do.
    ret.changes = { new: name };
    ret.result = null;
    if (!existsSync(name)) ret.comment = `File ${name} is set to be created`;
    else {
      const s = statSync(name);
      const differs = (want: unknown, have: Date) => want !== undefined && String(want) !== String(Math.floor(have.getTime() / 1000));
      if (differs(atime, s.atime) || differs(mtime, s.mtime)) {
        ret.comment = `Times set to be updated on file ${name}`;
        ret.changes = { touched: name };
      } else {
        ret.result = true;
        ret.comment = `File ${name} exists and has the correct times`;
      }
    }
    return ret;
  }
  if (asBool(args.makedirs)) await mkdir(dirname(name), { recursive: true });
  if (!existsSync(dirname(name)) || !statSync(dirname(name)).isDirectory()) return failed(ret, `Directory not present to touch file ${name}`);
  const extant = existsSync(name);
  if (!extant) closeSync(openSync(name, 'a'));
  const now = Date.now() / 1000;
  const a = atime !== undefined ? Number(atime) : mtime !== undefined ? Number(mtime) : now;
  const m = mtime !== undefined ? Number(mtime) : a;
  utimesSync(name, a, m);
  if (!extant) {
    ret.comment = `Created empty file ${name}`;
    ret.changes.new = name;
  } else {
    ret.comment = `Updated times on ${statSync(name).isDirectory() ? 'directory' : 'file'} ${name}`;
    ret.changes.touched = name;
  }
  ret.new_state = await pathState(name, ctx.cmd);
  return ret;
}

export const copyArgs: Record<string, ArgSpec> = {
  source: { type: 'string', required: true },
  force: { type: 'boolean' },
  makedirs: { type: 'boolean' },
  preserve: { type: 'boolean' },
  user: { type: ['string', 'number'] },
  group: { type: ['string', 'number'] },
  mode: { type: ['string', 'number'] },
  dir_mode: { type: ['string', 'number'] },
  subdir: { type: 'boolean' },
};

/** file.copy: a local copy of `source`; an existing target is kept unless `force`. */
export async function copy(args: Record<string, unknown>, ctx: StateContext): Promise<StateReturn> {
  let name = String(args.name ?? '');
  const source = String(args.source);
  const ret = start(name);
  ret.comment = `Copied "${source}" to "${name}"`;
  if (!name) return failed(ret, 'Must provide name to file.copy');
  const bad = notAbsolute(name);
  if (bad) return failed(ret, bad);
  if (!existsSync(source)) return failed(ret, `Source file "${source}" is not present`);
  const preserve = asBool(args.preserve);
  let mode: string | undefined;
  try {
    mode = preserve ? undefined : normaliseMode(args.mode);
  } catch (e) {
    return failed(ret, (e as Error).message);
  }
  const own = preserve ? {} : await resolveOwnership(args.user, args.group, ctx.cmd, ctx.test);
  if ('error' in own && own.error) return failed(ret, own.error);
  if (asBool(args.subdir) && existsSync(name) && statSync(name).isDirectory()) {
    name = join(name, basename(source));
  }
  const force = asBool(args.force);
  let changed = true;
  const target = await lstatOrUndefined(name);
  ret.old_state = target ? await pathState(name, ctx.cmd) : null;
  if (target) {
    if (force && target.isFile()) {
      const same = copyEqual(name, source);
      if (same) ret.comment = `${ret.comment} - files are identical but force flag is set`;
    }
    if (!force) changed = false;
    else if (!ctx.test) await rm(name, { force: true, recursive: true });
  }
  if (ctx.test) {
    if (changed) {
      ret.comment = `File "${source}" is set to be copied to "${name}"`;
      ret.result = null;
    } else ret.comment = `The target file "${name}" exists and will not be overwritten`;
    return ret;
  }
  if (!changed) {
    ret.comment = `The target file "${name}" exists and will not be overwritten`;
    ret.new_state = ret.old_state;
    return ret;
  }
  const dname = dirname(name);
  if (!existsSync(dname)) {
    if (!asBool(args.makedirs)) return failed(ret, `The target directory ${dname} is not present`);
    await mkdir(dname, { recursive: true });
  }
  try {
    if (statSync(source).isDirectory()) cpSync(source, name, { recursive: true, verbatimSymlinks: true, preserveTimestamps: false });
    else copyFileSync(source, name);
  } catch {
    return failed(ret, `Failed to copy "${source}" to "${name}"`);
  }
  ret.changes = { [name]: source };
  if (!preserve) {
    const st = lstatSync(name);
    const meta = await enforceMeta(name, st, { ...(own as object), user: args.user, group: args.group, mode });
    Object.assign(ret.changes, meta);
  }
  ret.new_state = await pathState(name, ctx.cmd);
  return ret;
}

/** Whether two regular files hold the same bytes (Salt compares their hashes). */
function copyEqual(a: string, b: string): boolean {
  const sa = statSync(a);
  const sb = statSync(b);
  if (!sa.isFile() || !sb.isFile() || sa.size !== sb.size) return false;
  return readFileSync(a).equals(readFileSync(b));
}

export const renameArgs: Record<string, ArgSpec> = {
  source: { type: 'string', required: true },
  force: { type: 'boolean' },
  makedirs: { type: 'boolean' },
};

/** file.rename: `source` moved to `name`; a source already gone is success. */
export async function renameState(args: Record<string, unknown>, ctx: StateContext): Promise<StateReturn> {
  const name = String(args.name ?? '');
  const source = String(args.source);
  const ret = start(name);
  if (!name) return failed(ret, 'Must provide name to file.rename');
  const bad = notAbsolute(name);
  if (bad) return failed(ret, bad);
  const src = await lstatOrUndefined(source);
  if (!src) {
    ret.comment = `Source file "${source}" has already been moved out of place`;
    ret.new_state = ret.old_state = await pathState(name, ctx.cmd);
    return ret;
  }
  const target = await lstatOrUndefined(name);
  ret.old_state = target ? await pathState(name, ctx.cmd) : null;
  if (target) {
    if (!asBool(args.force)) {
      ret.comment = `The target file "${name}" exists and will not be overwritten`;
      ret.new_state = ret.old_state;
      return ret;
    }
    if (!ctx.test) {
      try {
        await rm(name, { recursive: true, force: true });
      } catch {
        return failed(ret, `Failed to delete "${name}" in preparation for forced move`);
      }
    }
  }
  if (ctx.test) {
    ret.comment = `File "${source}" is set to be moved to "${name}"`;
    ret.result = null;
    return ret;
  }
  const dname = dirname(name);
  if (!existsSync(dname)) {
    if (!asBool(args.makedirs)) return failed(ret, `The target directory ${dname} is not present`);
    await mkdir(dname, { recursive: true });
  }
  try {
    if (src.isSymbolicLink()) {
      symlinkSync(readlinkSync(source), name);
      unlinkSync(source);
    } else {
      try {
        renameSync(source, name);
      } catch (e) {
        // Across filesystems: copy then remove, as shutil.move does.
        if ((e as NodeJS.ErrnoException).code !== 'EXDEV') throw e;
        cpSync(source, name, { recursive: true, verbatimSymlinks: true, preserveTimestamps: true });
        await rm(source, { recursive: true, force: true });
      }
    }
  } catch {
    return failed(ret, `Failed to move "${source}" to "${name}"`);
  }
  ret.comment = `Moved "${source}" to "${name}"`;
  ret.changes = { [name]: source };
  ret.new_state = await pathState(name, ctx.cmd);
  return ret;
}
