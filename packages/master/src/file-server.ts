import type { Logger } from '@brine/core';
import { masterErrors } from './errors.js';
import type { TreeBackend, TreeSnapshot } from '@brine/fileserver';

/** Why a requested path is refused, or undefined when it is a plain relative path. */
export function unsafePath(p: string): string | undefined {
  if (p === '') return 'is empty';
  if (p.includes('\0')) return 'contains a NUL byte';
  if (p.includes('\\')) return 'contains a backslash';
  if (/%(2e|2f|5c|00)/i.test(p)) return 'contains an encoded dot, slash or NUL';
  if (p.startsWith('/') || /^[A-Za-z]:/.test(p)) return 'is absolute';
  if (p.split('/').some((s) => s === '..')) return 'leaves the file roots';
  return undefined;
}

export interface FileGetReply {
  path: string;
  saltenv: string;
  hash: string;
  size: number;
  /** Base64 bytes; absent when the minion's copy (`have`) is current. */
  data?: string;
}

/**
 * The `salt://` file server: files of the file roots by env, with their sha256 so a minion
 * keeps a cache and fetches only what changed. Paths that would leave the roots are refused
 * and logged; symlinks out of a root are not in the tree at all.
 */
export class FileServer {
  refused = 0;
  served = 0;

  private readonly roots: TreeBackend;
  private readonly log: Logger;
  constructor(roots: TreeBackend, log: Logger) {
    this.roots = roots;
    this.log = log;
  }

  /**
   * The tree a request reads: its job's snapshot, else the current one. `jid` must be a job the
   * asking minion is part of (the caller checks): a minion's made-up jid would pin a snapshot.
   */
  private async tree(jid: string | undefined, saltenv: string): Promise<TreeSnapshot> {
    const snap = await (jid === undefined ? this.roots.current() : this.roots.forJob(jid));
    // the envs are the tree's: gitfs serves a branch as an env only while the branch exists
    if (!snap.files.has(saltenv)) throw masterErrors.make('BRINE_ERR_MASTER_UNKNOWN_ENV', { env: saltenv });
    return snap;
  }

  /**
   * The files of `saltenv` under the folder `prefix` with their hashes (Salt's
   * `cp.list_master` with a prefix; an empty prefix is the whole env): what a minion syncs
   * custom modules from.
   */
  async list(minion: string, rawPrefix: string, saltenv: string, jid?: string): Promise<Omit<FileGetReply, 'data'>[]> {
    const why = rawPrefix === '' ? undefined : unsafePath(rawPrefix);
    if (why) {
      this.refused++;
      this.log.warn({ event: 'file_refused', minion, path: rawPrefix, saltenv }, `file list refused: ${why}`);
      throw masterErrors.make('BRINE_ERR_MASTER_FILE_REFUSED', { path: rawPrefix, detail: why });
    }
    const clean = rawPrefix
      .split('/')
      .filter((s) => s !== '' && s !== '.')
      .join('/');
    const dir = clean === '' ? '' : `${clean}/`;
    const out: Omit<FileGetReply, 'data'>[] = [];
    for (const [rel, f] of (await this.tree(jid, saltenv)).files.get(saltenv) ?? []) {
      if (rel.startsWith(dir)) out.push({ path: rel, saltenv, hash: f.hash, size: f.size });
    }
    return out;
  }

  async get(minion: string, rawPath: string, saltenv: string, have?: string, jid?: string): Promise<FileGetReply | null> {
    const why = unsafePath(rawPath);
    if (why) {
      this.refused++;
      this.log.warn({ event: 'file_refused', minion, path: rawPath, saltenv }, `file request refused: ${why}`);
      throw masterErrors.make('BRINE_ERR_MASTER_FILE_REFUSED', { path: rawPath, detail: why });
    }
    const rel = rawPath
      .split('/')
      .filter((s) => s !== '' && s !== '.')
      .join('/');
    const snap = await this.tree(jid, saltenv);
    const f = snap.lookup(saltenv, rel);
    if (!f) return null;
    this.served++;
    const out: FileGetReply = { path: rel, saltenv, hash: f.hash, size: f.size };
    if (have !== f.hash) out.data = snap.read(saltenv, rel)!.toString('base64');
    return out;
  }
}
