import { JobSnapshots } from './job-snapshots.js';
import { mergeSnapshots, type TreeBackend, type TreeSnapshot } from './snapshot.js';

/**
 * Several backends as one tree (`fileserver_backend: [gitfs, roots]`): per env, the first
 * backend holding a path serves it, as Salt's file server asks its backends in order.
 */
export class FileTrees implements TreeBackend {
  readonly backends: TreeBackend[];
  private readonly envOrder: string[];
  private latest?: TreeSnapshot;
  private latestParts: TreeSnapshot[] = [];
  private readonly jobs = new JobSnapshots();

  constructor(backends: TreeBackend[], envOrder: string[] = []) {
    this.backends = backends;
    this.envOrder = envOrder;
  }

  private merged(parts: TreeSnapshot[]): TreeSnapshot {
    // the backends keep their snapshot while their tree is unchanged: so does the merge
    if (this.latest && parts.length === this.latestParts.length && parts.every((p, i) => p === this.latestParts[i])) return this.latest;
    this.latestParts = parts;
    const snap = mergeSnapshots(parts, this.envOrder);
    if (this.latest?.hash !== snap.hash) this.latest = snap;
    return this.latest;
  }

  async fresh(): Promise<TreeSnapshot> {
    return this.merged(await Promise.all(this.backends.map((b) => b.fresh())));
  }

  async current(): Promise<TreeSnapshot> {
    return this.merged(await Promise.all(this.backends.map((b) => b.current())));
  }

  forJob(key: string): Promise<TreeSnapshot> {
    return this.jobs.forJob(key, () => this.fresh());
  }
}
