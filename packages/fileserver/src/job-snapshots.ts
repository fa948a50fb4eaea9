import type { TreeSnapshot } from './snapshot.js';

/** Jobs whose snapshots are kept: a handful of jobs in flight at once is the norm. */
const JOB_SNAPSHOTS = 16;

/** What each job took at its first use (a snapshot, a set of them), for the job's other requests (the last few jobs). */
export class JobSnapshots<T = TreeSnapshot> {
  private readonly kept = new Map<string, T>();

  async forJob(key: string, take: () => Promise<T>): Promise<T> {
    const kept = this.kept.get(key);
    if (kept) return kept;
    const snap = await take();
    // requests of one job racing to its first use all get the snapshot kept first
    return this.kept.get(key) ?? this.keep(key, snap);
  }

  keep(key: string, snap: T): T {
    this.kept.set(key, snap);
    if (this.kept.size > JOB_SNAPSHOTS) this.kept.delete(this.kept.keys().next().value!);
    return snap;
  }

  get(key: string): T | undefined {
    return this.kept.get(key);
  }
}
