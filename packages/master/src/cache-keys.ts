import { createHash } from 'node:crypto';
import type { Grains } from '@brine/core';

/** One sha256 over the parts, each serialised and ended by a NUL (the compile and pillar caches' keys). */
export function hashOf(...parts: unknown[]): string {
  const h = createHash('sha256');
  for (const p of parts) h.update(typeof p === 'string' ? p : (JSON.stringify(p) ?? 'undefined')).update('\0');
  return h.digest('hex');
}

/** The grains but the id, as JSON: with the id beside it, the cache keys' view of the grains. */
export function anonymousJson(grains: Grains): string {
  const { id: _id, ...rest } = grains;
  return JSON.stringify(rest);
}
