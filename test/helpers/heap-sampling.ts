/**
 * Allocation counts for tests that guard what a hot path makes per item: V8's sampling heap
 * profiler also counts what was collected, so it measures bytes made, not time or what is kept.
 */
import { Session } from 'node:inspector/promises';

/** Bytes allocated by `fn`, collected or not (sampled every 512 bytes). */
export async function allocated(fn: () => void): Promise<number> {
  const session = new Session();
  session.connect();
  try {
    await session.post('HeapProfiler.startSampling', { samplingInterval: 512, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
    fn();
    const { profile } = await session.post('HeapProfiler.stopSampling');
    let total = 0;
    const walk = (n: typeof profile.head): void => {
      total += n.selfSize;
      n.children.forEach(walk);
    };
    walk(profile.head);
    return total;
  } finally {
    session.disconnect();
  }
}
