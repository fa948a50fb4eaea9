import { hash, randomBytes } from 'node:crypto';
import { readFile, rename, rm, writeFile, chown, chmod, mkdir } from '../../util/sync-fs.js';
import { basename, dirname, isAbsolute, join } from 'node:path';
import { closeSync, constants, fchmodSync, fstatSync, openSync, unlinkSync, writeSync, type Stats } from 'node:fs';
import { forgetAtSnapshotRestore, type CommandRunner, type StateReturn } from '@brine/core';
import { localOwnerNames, modeOf, ownerNames, lstatOrUndefined } from '../../util/fs-meta.js';

export function start(name: string): StateReturn {
  return { name, changes: {}, result: true, comment: '' };
}

export function failed(ret: StateReturn, comment: string): StateReturn {
  ret.result = false;
  ret.comment = comment;
  return ret;
}

/** Salt refuses relative paths for every file state. */
export function notAbsolute(name: string): string | undefined {
  return isAbsolute(name) ? undefined : `Specified file ${name} is not an absolute path`;
}

/** Python's str.splitlines for text files ("\n" and "\r\n"). */
export function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split(/\r?\n/);
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

export function isText(buf: Buffer): boolean {
  return !buf.subarray(0, 8000).includes(0);
}

/**
 * The resource contract of a file-like path (not followed when a symlink): what argument binding
 * can reference. `body`, when the caller has the file's bytes in hand, saves reading them again.
 */
export async function pathState(path: string, cmd?: CommandRunner, body?: Buffer): Promise<Record<string, unknown> | null> {
  const st = await lstatOrUndefined(path);
  if (!st) return null;
  return describe(path, st, cmd, body);
}

/** pathState for stats already taken (`body`: the file's bytes, when in hand). */
export async function describe(path: string, st: Stats, cmd?: CommandRunner, body?: Buffer): Promise<Record<string, unknown>> {
  const names = await ownerNames(st, cmd);
  return described(path, st, names, st.isFile() ? (body ?? (await readFile(path))) : undefined);
}

/** describe without a promise, when both owners are in the local account tables (else undefined). */
export function describeLocal(path: string, st: Stats, body: Buffer): Record<string, unknown> | undefined {
  const names = localOwnerNames(st);
  return names && described(path, st, names, body);
}

function described(path: string, st: Stats, { user, group }: { user: string; group: string }, body: Buffer | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = { name: path, mode: modeOf(st), user, group };
  if (st.isFile() && body) {
    out.size = st.size;
    // the one-shot hash: no Hash object per file
    out.sha256 = hash('sha256', body, 'hex');
  } else if (st.isDirectory()) {
    out.type = 'directory';
  } else if (st.isSymbolicLink()) {
    out.type = 'symlink';
  }
  return out;
}

/**
 * Replaces a file's bytes atomically: a temp file beside it, the old file's mode and owner copied
 * (or `defaultMode` for a new file), then rename over. No backup is left behind.
 */
export async function atomicWrite(path: string, data: Buffer | string, old: Stats | undefined, defaultMode: number): Promise<void> {
  const tmp = join(dirname(path), `.${basename(path)}.brine-${tmpSuffix()}`);
  try {
    await writeFile(tmp, data, { mode: old ? old.mode & 0o7777 : defaultMode });
    if (old) {
      await chmod(tmp, old.mode & 0o7777);
      if (process.getuid?.() === 0) await chown(tmp, old.uid, old.gid);
    } else {
      await chmod(tmp, defaultMode);
    }
    await rename(tmp, path);
  } catch (e) {
    await rm(tmp, { force: true });
    throw e;
  }
}

/**
 * Creates a file that is not there, in place, with exactly `mode`: O_EXCL, so nothing that
 * appeared meanwhile is followed or replaced (then `undefined`: the caller replaces it the
 * atomic way). Salt also creates a new file in place (it touches it, then copies the contents
 * in). One directory entry instead of a temp file's and a rename's. Returns the file's stat,
 * taken on the open file. A write that fails removes what it made.
 */
export function createExclusive(path: string, data: Buffer, mode: number): Stats | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, mode);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return undefined;
    throw e;
  }
  try {
    for (let off = 0; off < data.length;) off += writeSync(fd, data, off, data.length - off);
    // open(2) gives mode less the umask: only a mode the umask narrows needs setting again
    if ((mode & ~umask()) !== mode) fchmodSync(fd, mode);
    return fstatSync(fd);
  } catch (e) {
    closeSync(fd);
    fd = -1;
    try {
      unlinkSync(path);
    } catch {
      // the write's own error is the one to report
    }
    throw e;
  } finally {
    if (fd >= 0) closeSync(fd);
  }
}

/** Random bytes for temp names, taken 6 at a time from a pool (one crypto call per 512 files). */
let pool = Buffer.alloc(0);
let used = 0;
function tmpSuffix(): string {
  if (used + 6 > pool.length) {
    pool = randomBytes(6 * 512);
    used = 0;
  }
  used += 6;
  return pool.toString('hex', used - 6, used);
}

/**
 * The process umask, read once: each read is two umask(2) calls (set and restore), and nothing
 * in Brine sets its own umask (a state's `umask` applies to the commands it runs).
 */
let cachedUmask: number | undefined;
function umask(): number {
  return (cachedUmask ??= process.umask());
}

// a run from the startup snapshot: the build's random bytes (every run would pick the same temp
// names) and umask are not the run's
forgetAtSnapshotRestore(() => {
  pool = Buffer.alloc(0);
  used = 0;
  cachedUmask = undefined;
});

/** Mode a new file gets: 0666 less the process umask, as open(2) would give it. */
export function defaultFileMode(): number {
  return 0o666 & ~umask();
}

export async function ensureParent(path: string, makedirs: boolean): Promise<boolean> {
  const parent = dirname(path);
  const st = await lstatOrUndefined(parent);
  if (st) return true;
  if (!makedirs) return false;
  await mkdir(parent, { recursive: true });
  return true;
}
