import { createHash } from 'node:crypto';
import type { StateTree } from '@brine/compiler';
import type { RootFile, TreeSnapshot } from './file-roots.js';

/**
 * A compile worker reads no file root itself (it may read only Brine's code: a symlink in a root
 * pointing at data_dir would otherwise be readable through it). The master ships it the job's
 * snapshot instead: the listing, and the contents the worker does not hold yet. Master and worker
 * keep the same books per tree kind: after a shipment the worker holds exactly the contents its
 * listing names, so the master knows what to send next time without asking.
 */
export interface TreeShipment {
  hash: string;
  /** [env, rel, abs, content hash, size], in the snapshot's env order. */
  files: Array<[string, string, string, string, number]>;
  /** Contents the worker did not hold, by content hash. */
  contents: Array<[string, Uint8Array]>;
}

/** What the master knows a worker holds of one tree kind (file roots or pillar roots). */
export interface ShippedState {
  hash?: string;
  known: Set<string>;
}

/** The shipment that brings a worker from `held` to `snap` (undefined when it has it already) and the books after it. */
export function shipTree(snap: TreeSnapshot, held: ShippedState): { shipment?: TreeShipment; after: ShippedState } {
  if (held.hash === snap.hash) return { after: held };
  const files: TreeShipment['files'] = [];
  const contents: TreeShipment['contents'] = [];
  const known = new Set<string>();
  for (const [env, map] of snap.files) {
    for (const [rel, f] of map) {
      let hash = f.hash;
      if (!held.known.has(hash) && !known.has(hash)) {
        const data = snap.read(env, rel) ?? Buffer.alloc(0);
        // hashed again: a file rewritten since the walk is shipped as read now, under its own hash
        hash = createHash('sha256').update(data).digest('hex');
        if (!held.known.has(hash) && !known.has(hash)) contents.push([hash, data]);
      }
      known.add(hash);
      files.push([env, rel, f.abs, hash, f.size]);
    }
  }
  return { shipment: { hash: snap.hash, files, contents }, after: { hash: snap.hash, known } };
}

/** The worker's side: the snapshot it was shipped last, per tree kind. */
export class ShippedTree {
  private store = new Map<string, Uint8Array>();
  private snap: TreeSnapshot | undefined;

  accept(s: TreeShipment): void {
    const incoming = new Map(s.contents);
    const store = new Map<string, Uint8Array>();
    const files = new Map<string, Map<string, RootFile>>();
    for (const [env, rel, abs, hash, size] of s.files) {
      const data = this.store.get(hash) ?? incoming.get(hash);
      if (data) store.set(hash, data);
      let map = files.get(env);
      if (!map) files.set(env, (map = new Map()));
      map.set(rel, { abs, size, mtimeMs: 0, hash });
    }
    this.store = store;
    const read = (env: string, rel: string): Buffer | undefined => {
      const f = files.get(env)?.get(rel);
      const data = f ? store.get(f.hash) : undefined;
      return data ? Buffer.from(data.buffer, data.byteOffset, data.byteLength) : undefined;
    };
    const envs = [...files.keys()];
    const tree: StateTree = {
      envs: () => envs,
      list: (env) => [...(files.get(env)?.keys() ?? [])],
      read: (env, rel) => read(env, rel)?.toString('utf8'),
    };
    this.snap = { hash: s.hash, tree, files, lookup: (env, rel) => files.get(env)?.get(rel), read };
  }

  /** The snapshot shipped last; the master always ships the one a task needs before the task. */
  get(hash: string): TreeSnapshot {
    if (this.snap?.hash !== hash) throw new Error(`the compile worker holds tree ${this.snap?.hash.slice(0, 12) ?? '(none)'}, not ${hash.slice(0, 12)}`);
    return this.snap;
  }
}
