import { isIPv6 } from 'node:net';

export interface NewKeyLimits {
  /** Key rows a minute from one source address (an IPv6 /64). */
  perSource: number;
  /** Key rows a minute from all sources together: the ceiling a spread flood meets. */
  total: number;
  /** Sources remembered at once; the least recently seen is forgotten first. */
  maxSources?: number;
}

/** What a hello that would add a key row gets: a token, or which bucket was empty. */
export type NewKeyVerdict = 'ok' | 'source' | 'total';

/** Tokens kept in exact integer units: a token is MINUTE units, a millisecond adds `perMinute`. */
interface Bucket {
  units: number;
  at: number;
}

const MINUTE = 60_000;

/**
 * The source a hello is counted against: an IPv4 address (also when IPv4-mapped), or the /64
 * of an IPv6 address, since one host may hold a whole /64.
 */
export function sourceOf(address: string | undefined): string {
  const a = address ?? '';
  if (a.startsWith('::ffff:') && !isIPv6(a.slice(7))) return a.slice(7);
  if (!isIPv6(a)) return a;
  const [head = '', tail = ''] = a.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = a.includes('::') ? [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right] : left;
  return `${groups
    .slice(0, 4)
    .map((g) => parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}

/**
 * Token buckets for hellos that add a key row: one per source address, so that a flood of new
 * ids from one address cannot lock out genuine new minions elsewhere, and one for all sources,
 * so that a flood spread over many addresses still meets a ceiling. A refused hello spends
 * nothing. The clock is injected so the refill can be tested without waiting.
 */
export class NewKeyLimiter {
  private readonly limits: Required<NewKeyLimits>;
  private readonly now: () => number;
  /** Insertion order is recency: a source is moved to the end whenever it is seen. */
  private readonly bySource = new Map<string, Bucket>();
  private readonly all: Bucket;

  constructor(limits: NewKeyLimits, now: () => number = Date.now) {
    this.limits = { maxSources: 10_000, ...limits };
    this.now = now;
    this.all = { units: limits.total * MINUTE, at: now() };
  }

  take(address: string | undefined): NewKeyVerdict {
    const t = this.now();
    const key = sourceOf(address);
    const mine = this.bySource.get(key) ?? { units: this.limits.perSource * MINUTE, at: t };
    this.bySource.delete(key);
    this.bySource.set(key, mine);
    // a full bucket is the same as a forgotten one, so forgetting the oldest loses nothing but
    // the debt of a source that has been quiet the longest
    if (this.bySource.size > this.limits.maxSources) this.bySource.delete(this.bySource.keys().next().value!);
    refill(mine, this.limits.perSource, t);
    refill(this.all, this.limits.total, t);
    if (mine.units < MINUTE) return 'source';
    if (this.all.units < MINUTE) return 'total';
    mine.units -= MINUTE;
    this.all.units -= MINUTE;
    return 'ok';
  }

  /** Sources remembered (for tests and stats). */
  sources(): number {
    return this.bySource.size;
  }

  remainingTotal(): number {
    refill(this.all, this.limits.total, this.now());
    return Math.floor(this.all.units / MINUTE);
  }
}

function refill(b: Bucket, perMinute: number, now: number): void {
  b.units = Math.min(perMinute * MINUTE, b.units + Math.max(0, now - b.at) * perMinute);
  b.at = now;
}
