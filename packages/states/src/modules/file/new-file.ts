import { dirname } from 'node:path';
import { lstatOrUndefined, normaliseMode } from '../../util/fs-meta.js';
import { chmod, chown, mkdir } from '../../util/sync-fs.js';
import { defaultFileMode } from './common.js';

/**
 * The modes Salt leaves new files and directories with, so that the changes it reports can be
 * told apart from the ones it does not. Salt's file.managed copies a `source` (or a template's
 * output) through a 0600 temp file, and creates any file under umask 077 when a `mode` is given;
 * only afterwards does it set the wanted mode (the given one, else the umask's) and report it when
 * it differs. A new file from `contents` with no mode is made under the umask and reports none.
 */

/** The mode a new file has before file.managed sets the wanted one. */
export function initialFileMode(args: Record<string, unknown>, mode: string | undefined, umaskMode = defaultFileMode()): number {
  const copied = (args.contents === undefined || args.contents === null) && Boolean(args.source);
  return copied || mode !== undefined ? 0o600 : umaskMode;
}

/** The mode a new file ends with: the given one, else what the umask gives a new file. */
export function finalFileMode(mode: string | undefined, umaskMode = defaultFileMode()): string {
  return mode ?? umaskMode.toString(8).padStart(4, '0');
}

/**
 * The mode of the parent directories file.managed's makedirs creates: dir_mode, else the file's
 * mode with the execute bit added to every non-zero digit (so the directories can be listed).
 */
export function parentDirMode(dirMode: string | undefined, mode: string | undefined): string | undefined {
  if (dirMode !== undefined || mode === undefined) return dirMode;
  return mode
    .slice(-3)
    .split('')
    .map((d) => (d === '0' ? d : String(parseInt(d, 8) | 1)))
    .join('')
    .padStart(4, '0');
}

export interface DirMeta {
  mode?: string;
  uid?: number;
  gid?: number;
}

/**
 * Creates `dir` and its missing parents from the top down, each with the owner and the exact mode
 * given (set after mkdir, so the umask does not narrow it), as Salt's makedirs_ and mkdir do.
 * Returns whether `dir` itself was created.
 */
export async function makeDirs(dir: string, meta: DirMeta = {}): Promise<boolean> {
  const missing: string[] = [];
  for (let p = dir; !(await lstatOrUndefined(p)); p = dirname(p)) {
    missing.unshift(p);
    if (dirname(p) === p) break;
  }
  for (const p of missing) {
    await mkdir(p).catch((e: NodeJS.ErrnoException) => {
      if (e.code !== 'EEXIST') throw e;
    });
    if (meta.uid !== undefined || meta.gid !== undefined) await chown(p, meta.uid ?? -1, meta.gid ?? -1);
    if (meta.mode !== undefined) await chmod(p, parseInt(meta.mode, 8));
  }
  return missing.length > 0;
}

/** file.managed's makedirs: the file's missing parent directories, with the owner asked for. */
export async function makeParent(file: string, dirMode: unknown, mode: string | undefined, own: { uid?: number; gid?: number }): Promise<boolean> {
  await makeDirs(dirname(file), { mode: parentDirMode(normaliseMode(dirMode), mode), uid: own.uid, gid: own.gid });
  return true;
}
