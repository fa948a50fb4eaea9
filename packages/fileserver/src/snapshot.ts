import { createHash } from 'node:crypto';
import { sortEnvs } from '@brine/core';

/**
 * How the compiler reads a tree (the compiler's StateTree, by shape: this package imports core
 * only).
 */
export interface FileTree {
  envs(): string[];
  list(env: string): string[];
  read(env: string, path: string): string | undefined;
}

/**
 * One file of a tree snapshot: where it comes from (a path on disk, or `remote@commit:path` for
 * git) and the sha256 of its bytes.
 */
export interface RootFile {
  abs: string;
  size: number;
  mtimeMs: number;
  hash: string;
}

/**
 * A consistent view of a tree: the listing per env, the file hashes and a hash of the whole. A job
 * compiles every minion against one snapshot; a snapshot keeps the bytes it was taken with.
 */
export interface TreeSnapshot {
  readonly hash: string;
  readonly tree: FileTree;
  readonly files: Map<string, Map<string, RootFile>>;
  /** The file behind `path` in `env`, or undefined. */
  lookup(env: string, rel: string): RootFile | undefined;
  read(env: string, rel: string): Buffer | undefined;
}

/**
 * What the master's file server and compiles read a tree from: the file roots, gitfs, or several
 * of them in precedence order (FileTrees). Snapshots are taken off the event loop.
 */
export interface TreeBackend {
  /** The tree as a walk that starts after this call sees it. */
  fresh(): Promise<TreeSnapshot>;
  /** The newest tree without waiting for more than one walk. */
  current(): Promise<TreeSnapshot>;
  /** The snapshot of job `key`: taken at its first use, then kept for the job's other requests. */
  forJob(key: string): Promise<TreeSnapshot>;
}

const byKey = <T>([a]: [string, T], [b]: [string, T]) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * A snapshot of listings (env -> rel -> file) whose bytes `data(file)` gives: sorted listings and
 * the tree hash (over env names, paths and content hashes, so equal trees hash alike whatever
 * backend they come from).
 */
export function buildSnapshot(found: Map<string, Map<string, RootFile>>, data: (f: RootFile) => Buffer | undefined): TreeSnapshot {
  const files = new Map<string, Map<string, RootFile>>();
  const h = createHash('sha256');
  for (const [env, map] of found) {
    const sorted = new Map([...map].sort(byKey));
    files.set(env, sorted);
    h.update(`env\0${env}\0`);
    for (const [rel, f] of sorted) h.update(`${rel}\0${f.hash}\0`);
  }
  const read = (env: string, rel: string): Buffer | undefined => {
    const f = files.get(env)?.get(rel);
    return f ? data(f) : undefined;
  };
  const envs = [...files.keys()];
  const tree: FileTree = {
    envs: () => envs,
    list: (env) => [...(files.get(env)?.keys() ?? [])],
    read: (env, rel) => read(env, rel)?.toString('utf8'),
  };
  return { hash: h.digest('hex'), tree, files, lookup: (env, rel) => files.get(env)?.get(rel), read };
}

/** Envs in Salt's order (`base` first, then by name), those `envOrder` names first. */
export function orderEnvs(all: string[], envOrder: string[]): string[] {
  const sorted = sortEnvs(all);
  const first = envOrder.filter((e) => sorted.includes(e));
  return [...first, ...sorted.filter((e) => !first.includes(e))];
}

/**
 * Several snapshots as one, the first holding a path in an env serving it (Salt's
 * `fileserver_backend` order, and the order of gitfs remotes).
 */
export function mergeSnapshots(parts: TreeSnapshot[], envOrder: string[] = []): TreeSnapshot {
  if (parts.length === 1) return parts[0]!;
  const owner = new Map<RootFile, { p: TreeSnapshot; env: string; rel: string }>();
  const found = new Map<string, Map<string, RootFile>>();
  const envs = orderEnvs([...new Set(parts.flatMap((p) => [...p.files.keys()]))], envOrder);
  for (const env of envs) {
    const map = new Map<string, RootFile>();
    for (const p of parts) {
      for (const [rel, f] of p.files.get(env) ?? []) {
        if (map.has(rel)) continue;
        map.set(rel, f);
        owner.set(f, { p, env, rel });
      }
    }
    found.set(env, map);
  }
  return buildSnapshot(found, (f) => {
    const o = owner.get(f);
    return o?.p.read(o.env, o.rel);
  });
}
