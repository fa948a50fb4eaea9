import { GitRemote, type RemoteStatus } from './git-remote.js';
import type { GitRemoteSpec } from './git-remote-spec.js';
import { buildSnapshot, mergeSnapshots, type TreeBackend, type TreeSnapshot } from './snapshot.js';
import { JobSnapshots } from './job-snapshots.js';
import { coalesced } from './coalesce.js';

export interface GitFsOptions {
  /** Where the remotes' mirrors live (`<data_dir>/gitfs`). */
  cacheDir: string;
  /** Seconds one git process may take. */
  timeout?: number;
  envOrder?: string[];
  /** Told of each remote whose fetch failed (it keeps serving its last good commits). */
  onFailure?: (remote: RemoteStatus) => void;
}

/** Remotes fetched at once: a handful keeps the network busy without a process per remote. */
const FETCHES_AT_ONCE = 4;

/**
 * gitfs: the tree served from git remotes, branches and tags as saltenvs, the first remote holding
 * a path serving it. The tree changes only on `update` (the interval, `brine fileserver update`
 * or the webhook); requests read the snapshot built by the last update and never wait on git.
 */
export class GitFs implements TreeBackend {
  readonly remotes: GitRemote[];
  private readonly envOrder: string[];
  private readonly onFailure: (remote: RemoteStatus) => void;
  private latest?: TreeSnapshot;
  private latestParts: TreeSnapshot[] = [];
  private readonly jobs = new JobSnapshots();

  constructor(specs: GitRemoteSpec[], o: GitFsOptions) {
    this.remotes = specs.map((s, i) => new GitRemote(s, o.cacheDir, o.timeout ?? 120, i));
    this.envOrder = o.envOrder ?? [];
    this.onFailure = o.onFailure ?? (() => {});
  }

  /**
   * Fetches every remote and rebuilds the tree. A call during an update gets the update after it
   * (what was pushed before the call is seen); calls meanwhile share that one.
   */
  readonly update: () => Promise<RemoteStatus[]> = coalesced(() => this.fetchAll());

  private async fetchAll(): Promise<RemoteStatus[]> {
    const queue = [...this.remotes];
    const worker = async () => {
      for (let r = queue.shift(); r; r = queue.shift()) {
        if ((await r.update()) !== undefined) this.onFailure(r.status());
      }
    };
    await Promise.all(Array.from({ length: Math.min(FETCHES_AT_ONCE, queue.length) }, worker));
    const parts: TreeSnapshot[] = [];
    for (const r of this.remotes) parts.push(await r.snapshot());
    // remotes whose commits did not move keep their snapshots: so does the merge
    if (this.latest && parts.every((p, i) => p === this.latestParts[i])) return this.status();
    this.latestParts = parts;
    const snap = parts.length ? mergeSnapshots(parts, this.envOrder) : buildSnapshot(new Map(), () => undefined);
    // an unchanged tree keeps its object (and what hangs on it)
    if (this.latest?.hash !== snap.hash) this.latest = snap;
    return this.status();
  }

  status(): RemoteStatus[] {
    return this.remotes.map((r) => r.status());
  }

  /** The tree of the last update (the first update, if none has ended yet). */
  async current(): Promise<TreeSnapshot> {
    if (!this.latest) await this.update();
    return this.latest!;
  }

  fresh(): Promise<TreeSnapshot> {
    return this.current();
  }

  forJob(key: string): Promise<TreeSnapshot> {
    return this.jobs.forJob(key, () => this.current());
  }
}
