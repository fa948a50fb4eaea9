import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { sortEnvs, type StateTree } from '@brine/compiler';

/** One file of a tree snapshot: where it is on disk and the sha256 of its bytes. */
export interface RootFile {
  abs: string;
  size: number;
  mtimeMs: number;
  hash: string;
}

/**
 * A consistent view of one set of roots (`{env: [dirs]}`, the first dir holding a path wins):
 * the listing, the file hashes and a hash of the whole tree. A job compiles every minion against
 * one snapshot; contents are read once and kept while their size and mtime stay the same.
 */
export interface TreeSnapshot {
  readonly hash: string;
  readonly tree: StateTree;
  readonly files: Map<string, Map<string, RootFile>>;
  /** The file behind `path` in `env`, or undefined. */
  lookup(env: string, rel: string): RootFile | undefined;
  read(env: string, rel: string): Buffer | undefined;
}

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

export class FileRoots {
  private readonly content = new Map<string, Cached>();
  private readonly snapshots = new Map<string, TreeSnapshot>();

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
    const all = sortEnvs(Object.keys(this.roots));
    const first = this.envOrder.filter((e) => all.includes(e));
    return [...first, ...all.filter((e) => !first.includes(e))];
  }

  private load(abs: string, size: number, mtimeMs: number): Cached {
    const c = this.content.get(abs);
    if (c && c.size === size && c.mtimeMs === mtimeMs) return c;
    const data = readFileSync(abs);
    const fresh = { size, mtimeMs, data, hash: createHash('sha256').update(data).digest('hex') };
    this.content.set(abs, fresh);
    return fresh;
  }

  /** Walks the roots now. `key` (a jid) reuses the snapshot taken for the same key. */
  snapshot(key?: string): TreeSnapshot {
    if (key !== undefined) {
      const s = this.snapshots.get(key);
      if (s) return s;
    }
    const files = new Map<string, Map<string, RootFile>>();
    const h = createHash('sha256');
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
            if (name.startsWith('.')) continue;
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
              const c = this.load(full, st.size, st.mtimeMs);
              map.set(rel, { abs: full, size: st.size, mtimeMs: st.mtimeMs, hash: c.hash });
            }
          }
        };
        walk(rootReal);
      }
      const sorted = new Map([...map].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
      files.set(env, sorted);
      h.update(`env\0${env}\0`);
      for (const [rel, f] of sorted) h.update(`${rel}\0${f.hash}\0`);
    }
    const read = (env: string, rel: string): Buffer | undefined => {
      const f = files.get(env)?.get(rel);
      if (!f) return undefined;
      return this.load(f.abs, f.size, f.mtimeMs).data;
    };
    const envs = [...files.keys()];
    const tree: StateTree = {
      envs: () => envs,
      list: (env) => [...(files.get(env)?.keys() ?? [])],
      read: (env, rel) => read(env, rel)?.toString('utf8'),
    };
    const snap: TreeSnapshot = {
      hash: h.digest('hex'),
      tree,
      files,
      lookup: (env, rel) => files.get(env)?.get(rel),
      read,
    };
    if (key !== undefined) {
      this.snapshots.set(key, snap);
      // a handful of jobs in flight at once is the norm; older snapshots are dropped
      if (this.snapshots.size > 16) this.snapshots.delete(this.snapshots.keys().next().value!);
    }
    return snap;
  }
}
