import { lstat, readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { isValidMinionId } from '@brine/protocol';
import { setKey, type Pillar } from '@brine/core';
import { ExtPillarFailure } from './ext-source.js';
import { fnmatch } from './fnmatch.js';

export interface FileTreeOptions {
  rootDir: string;
  followDirLinks: boolean;
  /** true, false, or globs of paths (relative to the host's folder) whose final newline stays. */
  keepNewline: boolean | string[];
  /** Bytes read for one minion at most. */
  maxBytes: number;
}

/**
 * Salt's file_tree pillar, raw files only: `<root_dir>/hosts/<minion id>/` as a mapping, a
 * folder a nested mapping and a file its contents (a final newline dropped unless keep_newline
 * says so). A link to a folder is an empty mapping unless follow_dir_links, as Salt's walk makes
 * it. Read asynchronously, off the event loop. A minion without a folder gets nothing.
 */
export async function fileTreePillar(id: string, o: FileTreeOptions): Promise<Pillar> {
  if (!isValidMinionId(id)) throw new ExtPillarFailure(`minion id '${id}' is not a valid minion id`);
  const hostDir = path.join(o.rootDir, 'hosts', id);
  try {
    if (!(await stat(hostDir)).isDirectory()) throw new ExtPillarFailure(`${hostDir} exists, but is not a directory`);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw e;
  }
  const budget = { left: o.maxBytes };
  return walk(hostDir, '', o, budget, 0);
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
