import type { Logger } from '@brine/core';
import type { RemoteStatus } from '@brine/fileserver';

/** Something fetched from git remotes: gitfs, git_pillar. */
export interface GitSource {
  update(): Promise<RemoteStatus[]>;
  status(): RemoteStatus[];
}

/** A remote's status with what it serves for (`gitfs` or `git_pillar`). */
export type KindStatus = RemoteStatus & { kind: string };

/**
 * The master's git remotes: fetched every `gitfs_update_interval` seconds, and at once on
 * `brine fileserver update` / `POST /v1/fileserver/update` (a push webhook). The fetches are
 * child processes: the event loop only waits on them.
 */
export class GitUpdates {
  private readonly sources: Array<[string, GitSource]>;
  private timer: NodeJS.Timeout | undefined;
  private readonly log: Logger;

  constructor(sources: Array<[string, GitSource]>, log: Logger) {
    this.sources = sources;
    this.log = log;
  }

  get any(): boolean {
    return this.sources.length > 0;
  }

  /** Fetches every remote now; resolves with their statuses once the trees are rebuilt. */
  async update(): Promise<KindStatus[]> {
    const all = await Promise.all(this.sources.map(async ([kind, s]) => (await s.update()).map((r) => ({ ...r, kind }))));
    return all.flat();
  }

  status(): KindStatus[] {
    return this.sources.flatMap(([kind, s]) => s.status().map((r) => ({ ...r, kind })));
  }

  /** The first fetch now, then one every `seconds` (0: only on demand). */
  start(seconds: number): void {
    if (!this.any) return;
    const run = () => void this.update().catch((e: unknown) => this.log.error({ event: 'gitfs_update_failed' }, (e as Error).message));
    run();
    if (seconds > 0) {
      this.timer = setInterval(run, seconds * 1000);
      this.timer.unref();
    }
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
