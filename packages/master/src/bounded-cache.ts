import { LRUCache } from 'lru-cache';

/**
 * A least-recently-used cache bounded twice: by entries and by an estimate of the memory its
 * values hold, so a fleet of large compiles cannot grow the master without limit. Reads and
 * writes both make an entry recent; hits and misses are counted for /v1/stats.
 */
export class BoundedCache<V extends object> {
  private readonly lru: LRUCache<string, V> | undefined;
  hits = 0;
  misses = 0;

  constructor(maxEntries: number, maxBytes: number, sizeOf: (v: V) => number) {
    // a size of 0 turns the cache off (compile_cache_size: 0)
    this.lru =
      maxEntries > 0
        ? new LRUCache<string, V>({ max: maxEntries, maxSize: Math.max(1, maxBytes), sizeCalculation: (v) => Math.max(1, Math.min(sizeOf(v), maxBytes)) })
        : undefined;
  }

  get(key: string): V | undefined {
    const v = this.lru?.get(key);
    if (v === undefined) this.misses++;
    else this.hits++;
    return v;
  }

  set(key: string, value: V): void {
    this.lru?.set(key, value);
  }

  get size(): number {
    return this.lru?.size ?? 0;
  }
}

/** A cheap estimate of the bytes a compiled state holds: its chunks dominate. */
export function compiledBytes(v: { reply: { low: unknown[]; errors: string[] } }): number {
  return 4096 + v.reply.low.length * 1024 + v.reply.errors.length * 256;
}
