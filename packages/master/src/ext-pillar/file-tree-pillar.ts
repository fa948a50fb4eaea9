import { lstat, readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { matchTarget, mergePillar } from '@brine/compiler';
import { isValidMinionId } from '@brine/protocol';
import { setKey, type Grains, type Pillar } from '@brine/core';
import { ExtPillarFailure } from './ext-source.js';
import { fnmatch } from './fnmatch.js';

export interface FileTreeOptions {
  rootDir: string;
  followDirLinks: boolean;
  /** true, false, or globs of paths (relative to the host's folder) whose final newline stays. */
  keepNewline: boolean | string[];
  /** Bytes read for one minion at most. */
  maxBytes: number;
  /** The master's nodegroups: `<root_dir>/nodegroups/<name>/` serves the minions of nodegroup <name>. */
  nodegroups: Record<string, string | string[]>;
}

/**
 * Salt's file_tree pillar, raw files only: the folders of the nodegroups the minion is in
 * (`<root_dir>/nodegroups/<name>/`, matched with its grains; a pillar term (I@) in a nodegroup
 * matches nothing here) merged, then `<root_dir>/hosts/<minion id>/` over them. A folder is a
 * nested mapping and a file its contents (a final newline dropped unless keep_newline says so).
 * A link to a folder is an empty mapping unless follow_dir_links, as Salt's walk makes it. Read
 * asynchronously, off the event loop.
 */
export async function fileTreePillar(id: string, grains: Grains, o: FileTreeOptions): Promise<Pillar> {
  if (!isValidMinionId(id)) throw new ExtPillarFailure(`minion id '${id}' is not a valid minion id`);
  const budget = { left: o.maxBytes };
  let out: Pillar = {};
  const groupsDir = path.join(o.rootDir, 'nodegroups');
  if (Object.keys(o.nodegroups).length > 0 && (await isDir(groupsDir))) {
    for (const name of (await readdir(groupsDir)).sort()) {
      if (!Object.hasOwn(o.nodegroups, name) || !matchTarget(name, 'nodegroup', { id, grains }, { nodegroups: o.nodegroups })) continue;
      if (await isDir(path.join(groupsDir, name))) out = mergePillar(out, await walk(path.join(groupsDir, name), '', o, budget, 0));
    }
  }
  const hostDir = path.join(o.rootDir, 'hosts', id);
  if (!(await isDir(hostDir))) return out;
  return mergePillar(out, await walk(hostDir, '', o, budget, 0));
}

/** Whether `p` is a folder (following links); a missing path is not one, a path that is something else fails the source. */
async function isDir(p: string): Promise<boolean> {
  try {
    if ((await stat(p)).isDirectory()) return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw e;
  }
  throw new ExtPillarFailure(`${p} exists, but is not a directory`);
}

async function walk(dir: string, prefix: string, o: FileTreeOptions, budget: { left: number }, depth: number): Promise<Pillar> {
  if (depth > 64) throw new ExtPillarFailure(`${dir}: more than 64 folders deep (a link loop?)`);
  const out: Pillar = {};
  const entries = (await readdir(dir)).sort();
  for (const name of entries) {
    const abs = path.join(dir, name);
    const rel = prefix ? `${prefix}/${name}` : name;
    const l = await lstat(abs);
    const s = l.isSymbolicLink() ? await stat(abs).catch(() => undefined) : l;
    if (s?.isDirectory()) {
      setKey(out, name, l.isSymbolicLink() && !o.followDirLinks ? {} : await walk(abs, rel, o, budget, depth + 1));
    } else if (s?.isFile()) {
      budget.left -= s.size;
      if (budget.left < 0) throw new ExtPillarFailure(`more than ${o.maxBytes} bytes of files for this minion`);
      let text = await readFile(abs, 'utf8');
      // Salt matches the globs against the path from the walk's `.` (a top file is `./name`)
      if (text.endsWith('\n') && !keepNewline(prefix ? rel : `./${name}`, o.keepNewline)) text = text.slice(0, -1);
      setKey(out, name, text);
    }
    // anything else (a socket, a dangling link) is not a regular file: Salt skips it too
  }
  return out;
}

function keepNewline(rel: string, keep: boolean | string[]): boolean {
  if (typeof keep === 'boolean') return keep;
  return keep.some((g) => fnmatch(rel, String(g)));
}
