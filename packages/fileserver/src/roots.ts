import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, realpathSync, statSync, type Dirent } from 'node:fs';
import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { servedTreeName } from '@brine/core';
import { JobSnapshots } from './job-snapshots.js';
import { buildSnapshot, orderEnvs, type RootFile, type TreeBackend, type TreeSnapshot } from './snapshot.js';

interface Cached {
  size: number;
  mtimeMs: number;
  data: Buffer;
  hash: string;
}

function inside(root: string, p: string): boolean {
  const rel = path.relative(root, p);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** Files of one walk: per env, relative path -> file, and the contents by absolute path. */
interface Walked {
  files: Map<string, Map<string, RootFile>>;
  data: Map<string, Buffer>;
}

/** Entries stat'ed at once in an async walk: enough to keep the disk busy, few enough to leave the thread pool to others. */
const STAT_BATCH = 32;
/** A file removed between its listing and its read is left out; any other read error fails the walk. */
const gone = (err: unknown) => (err as { code?: string }).code === 'ENOENT';

const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/**
 * The file roots as snapshots. On the master's event loop the tree is walked asynchronously,
 * one walk at a time: a request that needs the tree waits on the walk in flight (or the one
 * queued after it) instead of starting its own, so a flood of requests costs a walk now and
 * then rather than one each. A compile worker walks synchronously (`snapshot`): it has its
 * own thread.
 */
export class FileRoots implements TreeBackend {
  private readonly content = new Map<string, Cached>();
  private readonly snapshots = new JobSnapshots();
  private latest?: TreeSnapshot;
  private walking?: Promise<TreeSnapshot>;
  private queued?: Promise<TreeSnapshot>;

  readonly roots: Record<string, string[]>;
  private readonly envOrder: string[];
  /** Told about symlinks pointing out of their root (they are left out of the tree). */
  private readonly onEscape: (env: string, file: string, target: string) => void;
  constructor(roots: Record<string, string[]>, envOrder: string[] = [], onEscape: (env: string, file: string, target: string) => void = () => {}) {
    this.roots = roots;
    this.envOrder = envOrder;
    this.onEscape = onEscape;
  }

  envs(): string[] {
    return orderEnvs(Object.keys(this.roots), this.envOrder);
  }

  private load(abs: string, size: number, mtimeMs: number): Cached {
    const c = this.content.get(abs);
    if (c && c.size === size && c.mtimeMs === mtimeMs) return c;
    const data = readFileSync(abs);
    const fresh = { size, mtimeMs, data, hash: createHash('sha256').update(data).digest('hex') };
    this.content.set(abs, fresh);
    return fresh;
  }

  /** Walks the roots now, blocking (a compile worker's thread). `key` (a jid) reuses the snapshot taken for the same key. */
  snapshot(key?: string): TreeSnapshot {
    const kept = key === undefined ? undefined : this.snapshots.get(key);
    if (kept) return kept;
    const snap = this.build(this.walkSync());
    return key === undefined ? snap : this.snapshots.keep(key, snap);
  }

  /** The tree as a walk that starts after this call sees it (callers during one walk share the next). */
  fresh(): Promise<TreeSnapshot> {
    if (!this.walking) return this.walk();
    // a walk started once the one in flight ended serves everyone queued behind it
    this.queued ??= this.walking.then(
      () => this.nextWalk(),
      () => this.nextWalk(),
    );
    return this.queued;
  }

  private nextWalk(): Promise<TreeSnapshot> {
    this.queued = undefined;
    return this.walking ?? this.walk();
  }

  /** The newest tree without waiting for more than one walk: the walk in flight, else a new one. */
  current(): Promise<TreeSnapshot> {
    return this.walking ?? this.walk();
  }

  /** The snapshot of job `key`: taken fresh at its first use, then kept for the job's other requests. */
  forJob(key: string): Promise<TreeSnapshot> {
    return this.snapshots.forJob(key, () => this.fresh());
  }

  private walk(): Promise<TreeSnapshot> {
    const p = this.walkAsync()
      .then((w) => {
        const snap = this.build(w);
        // one snapshot per tree state: an unchanged tree keeps the object (and what hangs on it)
        if (this.latest?.hash !== snap.hash) this.latest = snap;
        return this.latest;
      })
      .finally(() => {
        if (this.walking === p) this.walking = undefined;
      });
    this.walking = p;
    return p;
  }

  private async loadAsync(abs: string, size: number, mtimeMs: number): Promise<Cached> {
    const c = this.content.get(abs);
    if (c && c.size === size && c.mtimeMs === mtimeMs) return c;
    const data = await readFile(abs);
    const fresh = { size, mtimeMs, data, hash: createHash('sha256').update(data).digest('hex') };
    this.content.set(abs, fresh);
    return fresh;
  }

  /** One entry of an async walk: a folder to descend into, a file with its stat, or nothing. */
  private async entryAsync(env: string, rootReal: string, full: string, d: Dirent): Promise<'dir' | { size: number; mtimeMs: number } | undefined> {
    try {
      if (d.isSymbolicLink()) {
        const real = await realpath(full);
        if (!inside(rootReal, real)) {
          this.onEscape(env, path.relative(rootReal, full), real);
          return undefined;
        }
      } else if (d.isDirectory()) return 'dir';
      else if (!d.isFile()) return undefined;
      const st = await stat(full);
      if (st.isDirectory()) return 'dir';
      return st.isFile() ? { size: st.size, mtimeMs: st.mtimeMs } : undefined;
    } catch {
      return undefined;
    }
  }

  private async walkDirAsync(env: string, rootReal: string, dir: string, map: Map<string, RootFile>, data: Map<string, Buffer>): Promise<void> {
    let entries: Dirent[];
    try {
      entries = (await readdir(dir, { withFileTypes: true })).filter((d) => servedTreeName(d.name)).sort(byName);
    } catch {
      return;
    }
    for (let i = 0; i < entries.length; i += STAT_BATCH) {
      const batch = entries.slice(i, i + STAT_BATCH);
      const found = await Promise.all(batch.map((d) => this.entryAsync(env, rootReal, path.join(dir, d.name), d)));
      const files: Array<Promise<void>> = [];
      for (let j = 0; j < batch.length; j++) {
        const full = path.join(dir, batch[j]!.name);
        const what = found[j];
        if (what === 'dir') await this.walkDirAsync(env, rootReal, full, map, data);
        else if (what) {
          const rel = path.relative(rootReal, full).split(path.sep).join('/');
          if (map.has(rel)) continue;
          map.set(rel, { abs: full, size: what.size, mtimeMs: what.mtimeMs, hash: '' });
          files.push(
            this.loadAsync(full, what.size, what.mtimeMs).then(
              (c) => {
                map.get(rel)!.hash = c.hash;
                data.set(full, c.data);
              },
              (err: unknown) => {
                if (!gone(err)) throw err;
                map.delete(rel);
              },
            ),
          );
        }
      }
      await Promise.all(files);
    }
  }

  private async walkAsync(): Promise<Walked> {
    const files = new Map<string, Map<string, RootFile>>();
    const data = new Map<string, Buffer>();
    for (const env of this.envs()) {
      const map = new Map<string, RootFile>();
      for (const root of this.roots[env] ?? []) {
        let rootReal: string;
        try {
          rootReal = await realpath(root);
        } catch {
          continue;
        }
        await this.walkDirAsync(env, rootReal, rootReal, map, data);
      }
      files.set(env, map);
    }
    return { files, data };
  }

  private walkSync(): Walked {
    const files = new Map<string, Map<string, RootFile>>();
    const data = new Map<string, Buffer>();
    for (const env of this.envs()) {
      const map = new Map<string, RootFile>();
      for (const root of this.roots[env] ?? []) {
        let rootReal: string;
        try {
          rootReal = realpathSync(root);
        } catch {
          continue;
        }
        const walk = (dir: string) => {
          let entries: string[];
          try {
            entries = readdirSync(dir).sort();
          } catch {
            return;
          }
          for (const name of entries) {
            if (!servedTreeName(name)) continue;
            const full = path.join(dir, name);
            let st;
            try {
              st = lstatSync(full);
              if (st.isSymbolicLink()) {
                const real = realpathSync(full);
                if (!inside(rootReal, real)) {
                  this.onEscape(env, path.relative(rootReal, full), real);
                  continue;
                }
                st = statSync(full);
              }
            } catch {
              continue;
            }
            if (st.isDirectory()) walk(full);
            else if (st.isFile()) {
              const rel = path.relative(rootReal, full).split(path.sep).join('/');
              if (map.has(rel)) continue;
              let c: Cached;
              try {
                c = this.load(full, st.size, st.mtimeMs);
              } catch (err) {
                if (gone(err)) continue;
                throw err;
              }
              map.set(rel, { abs: full, size: st.size, mtimeMs: st.mtimeMs, hash: c.hash });
              data.set(full, c.data);
            }
          }
        };
        walk(rootReal);
      }
      files.set(env, map);
    }
    return { files, data };
  }

  /** A snapshot of what a walk found: sorted listings, the tree hash, and the bytes as they were read. */
  private build(w: Walked): TreeSnapshot {
    return buildSnapshot(w.files, (f) => w.data.get(f.abs));
  }
}
