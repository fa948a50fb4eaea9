type Listener<T> = (value: T) => void | Promise<void>;

/**
 * The minion's pillar and grains refresh hook: saltutil.refresh_pillar, refresh_grains and
 * sync_all fire it, and what reads pillar or grains once at start (mine_functions, schedule)
 * subscribes to read them again. One per agent (a swarm runs many agents in one process). A
 * listener that throws is logged by the caller's `onError` and does not stop the others.
 */
export class RefreshHooks {
  private readonly pillar = new Set<Listener<Record<string, unknown>>>();
  private readonly grains = new Set<Listener<Record<string, unknown>>>();
  private readonly onError: (err: unknown, what: 'pillar' | 'grains') => void;

  constructor(onError: (err: unknown, what: 'pillar' | 'grains') => void = () => {}) {
    this.onError = onError;
  }

  /** Called with the fresh pillar after each pillar refresh; returns the unsubscribe. */
  onPillarRefresh(fn: Listener<Record<string, unknown>>): () => void {
    this.pillar.add(fn);
    return () => this.pillar.delete(fn);
  }

  /** Called with the fresh grains after each grains refresh; returns the unsubscribe. */
  onGrainsRefresh(fn: Listener<Record<string, unknown>>): () => void {
    this.grains.add(fn);
    return () => this.grains.delete(fn);
  }

  firePillar(pillar: Record<string, unknown>): Promise<void> {
    return this.fire(this.pillar, pillar, 'pillar');
  }

  fireGrains(grains: Record<string, unknown>): Promise<void> {
    return this.fire(this.grains, grains, 'grains');
  }

  private async fire(set: Set<Listener<Record<string, unknown>>>, value: Record<string, unknown>, what: 'pillar' | 'grains'): Promise<void> {
    await Promise.all(
      [...set].map(async (fn) => {
        try {
          await fn(value);
        } catch (err) {
          this.onError(err, what);
        }
      }),
    );
  }
}
