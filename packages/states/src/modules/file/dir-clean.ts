import { opendirSync, rmSync, statSync, type Dirent } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import type { LowChunk, StateContext } from '@brine/core';
import { includeExclude } from './include-exclude.js';

/**
 * file.directory's `clean` as Salt 3007 does it (states/file.py _gen_keep_files, _check_directory,
 * _clean_dir): only what the states in the directory's own `require` manage is kept (a `file:`
 * requisite matching a chunk's id or name, of any state; a required directory below this one
 * keeps its whole tree), plus the file states that name this one in their `require_in` (Salt
 * merges those into `require` at run time). Every other file state's file is cleaned like any
 * stale one. The prediction and the removal walk differently, as Salt's do: the prediction keeps
 * only exact paths (so the parent folder of a kept file is predicted removed, and the real run
 * reports that prediction too), the removal also keeps every parent of a kept path.
 */

/** One level of a top-down walk: the folder and its entries in the order the OS lists them. */
interface Level {
  dir: string;
  dirs: string[];
  files: string[];
}

/** Python's os.walk, top-down: symlinks to folders are listed with the folders but not entered. */
function walk(root: string): Level[] {
  const out: Level[] = [];
  const visit = (dir: string) => {
    let entries;
    try {
      entries = listdir(dir);
    } catch {
      return;
    }
    const level: Level = { dir, dirs: [], files: [] };
    const enter: string[] = [];
    for (const e of entries) {
      if (e.isDirectory()) enter.push(e.name);
      const isDir = e.isDirectory() || (e.isSymbolicLink() && isDirTarget(join(dir, e.name)));
      (isDir ? level.dirs : level.files).push(e.name);
    }
    out.push(level);
    for (const d of enter) visit(join(dir, d));
  };
  visit(root);
  return out;
}

/**
 * A folder's entries in the order the file system lists them, as Python's scandir gives them
 * (readdirSync sorts them by name): Salt's comments and removals follow this order.
 */
function listdir(dir: string): Dirent[] {
  const d = opendirSync(dir);
  try {
    const out: Dirent[] = [];
    for (let e = d.readSync(); e; e = d.readSync()) out.push(e);
    return out;
  } finally {
    d.closeSync();
  }
}

function isDirTarget(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** The file requisites that keep paths: the chunk's `require`, and other file chunks' `require_in` aimed at it. */
function keepRefs(low: LowChunk, lowstate: LowChunk[]): { refs: string[]; sources: LowChunk[] } {
  const refs: string[] = [];
  for (const r of Array.isArray(low.require) ? low.require : []) {
    if (r && typeof r === 'object' && 'file' in r) refs.push(String((r as Record<string, unknown>).file));
  }
  const sources = lowstate.filter(
    (c) =>
      c.state === 'file' &&
      Array.isArray(c.require_in) &&
      c.require_in.some((r) => r && typeof r === 'object' && 'file' in r && [low.__id__, low.name].includes(String((r as Record<string, unknown>).file))),
  );
  return { refs, sources };
}

/** Salt's _gen_keep_files: the paths the required states manage under (or beside) `name`. */
export function keepFiles(name: string, ctx: StateContext): Set<string> {
  const keep = new Set<string>();
  const { refs, sources } = keepRefs(ctx.low, ctx.lowstate);
  const required = [...ctx.lowstate.filter((l) => refs.includes(l.name) || refs.includes(l.__id__)), ...sources];
  for (const low of required) {
    const fn = String(low.name);
    if (!isDirTarget(fn)) keep.add(fn);
    else if (!relative(name, fn).startsWith('..')) {
      keep.add(fn);
      for (const level of walk(fn)) for (const n of [...level.files, ...level.dirs]) keep.add(join(level.dir, n));
    }
  }
  return keep;
}

/** What test mode (and the real run's first report) says clean removes: exact keeps, files before folders per level. */
export function predictClean(name: string, keep: Set<string>, excludePat: string | string[] | undefined): string[] {
  const out: string[] = [];
  for (const level of walk(name)) {
    for (const n of [...level.files, ...level.dirs]) {
      const p = join(level.dir, n);
      if (!keep.has(p) && includeExclude(relative(name, p), undefined, excludePat)) out.push(p);
    }
  }
  return out;
}

/** Salt's _clean_dir: removes what is neither kept nor a parent of a kept path; returns what it removed. */
export function cleanDir(name: string, keep: Set<string>, excludePat: string | string[] | undefined): string[] {
  const realKeep = new Set<string>([name]);
  for (const k of keep) {
    if (!k.startsWith('/')) continue;
    for (let p = k; ; p = dirname(p)) {
      realKeep.add(p);
      if (dirname(p) === p) break;
    }
  }
  const removed: string[] = [];
  const visit = (dir: string) => {
    const level = walk1(dir);
    if (!level) return;
    for (const n of [...level.dirs, ...level.files]) {
      const p = join(dir, n);
      if (realKeep.has(p) || !includeExclude(relative(name, p), undefined, excludePat)) continue;
      removed.push(p);
      rmSync(p, { recursive: true, force: true });
    }
    // os.walk lists the sub-folders before the loop above removes some; those are skipped.
    for (const d of level.dirs) visit(join(dir, d));
  };
  visit(name);
  return removed;
}

function walk1(dir: string): Level | undefined {
  try {
    const entries = listdir(dir);
    const level: Level = { dir, dirs: [], files: [] };
    for (const e of entries) (e.isDirectory() ? level.dirs : level.files).push(e.name);
    return level;
  } catch {
    return undefined;
  }
}
