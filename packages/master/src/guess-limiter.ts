import { isIP } from 'node:net';

export interface GuessLimiterOptions {
  /** Wrong guesses a source may make before it is held off. */
  free?: number;
  /** The first hold-off; each further wrong guess doubles it, up to maxMs. */
  baseMs?: number;
  maxMs?: number;
  /** A source with no wrong guess for this long starts over. */
  forgetMs?: number;
  /** Sources remembered at most (the oldest go first): a flood of addresses costs bounded memory. */
  maxSources?: number;
  now?: () => number;
}

interface Record_ {
  failures: number;
  last: number;
  until: number;
}

/** The 16-bit groups of an IPv6 address, '::' expanded. */
function groups6(ip: string): string[] {
  const [head, tail] = ip.split('::') as [string, string | undefined];
  const h = head ? head.split(':') : [];
  const tl = tail ? tail.split(':') : [];
  const all = tail === undefined ? h : [...h, ...Array<string>(8 - h.length - tl.length).fill('0'), ...tl];
  return all.map((g) => parseInt(g, 16).toString(16));
}

/**
 * Whose guesses are counted together: an IPv4 address, or the /64 of an IPv6 one (a single host
 * usually holds a whole /64, and would otherwise have 2^64 fresh sources).
 */
export function sourceKey(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return mapped[1]!;
  if (isIP(ip) !== 6) return ip;
  return `${groups6(ip.split('%')[0]!).slice(0, 4).join(':')}::/64`;
}

/**
 * Backs off wrong API tokens per source (bearer checks and console sign-in): after `free` wrong
 * guesses the source is answered 429 with Retry-After until a delay passes that doubles with
 * every further wrong guess. Held-off requests are not checked at all, so they teach nothing;
 * other sources are not affected. A right token clears the source's record.
 */
export class GuessLimiter {
  private readonly sources = new Map<string, Record_>();
  private readonly free: number;
  private readonly baseMs: number;
  private readonly maxMs: number;
  private readonly forgetMs: number;
  private readonly maxSources: number;
  private readonly now: () => number;
  constructor(opts: GuessLimiterOptions = {}) {
    this.free = opts.free ?? 5;
    this.baseMs = opts.baseMs ?? 1000;
    this.maxMs = opts.maxMs ?? 15 * 60_000;
    this.forgetMs = opts.forgetMs ?? 60 * 60_000;
    this.maxSources = opts.maxSources ?? 10_000;
    this.now = opts.now ?? Date.now;
  }

  get size(): number {
    return this.sources.size;
  }

  private current(source: string): Record_ | undefined {
    const r = this.sources.get(source);
    if (r && r.until <= this.now() && this.now() - r.last > this.forgetMs) {
      this.sources.delete(source);
      return undefined;
    }
    return r;
  }

  /** Seconds the source must wait before its next guess is checked; undefined: check it now. */
  retryAfter(source: string): number | undefined {
    const r = this.current(source);
    const wait = r ? r.until - this.now() : 0;
    return wait > 0 ? Math.ceil(wait / 1000) : undefined;
  }

  failed(source: string): void {
    const now = this.now();
    const r = this.current(source) ?? { failures: 0, last: now, until: 0 };
    r.failures++;
    r.last = now;
    if (r.failures >= this.free) r.until = now + Math.min(this.baseMs * 2 ** (r.failures - this.free), this.maxMs);
    // the most recent at the end: the table drops the longest quiet first
    this.sources.delete(source);
    this.sources.set(source, r);
    while (this.sources.size > this.maxSources) this.sources.delete(this.sources.keys().next().value!);
  }

  succeeded(source: string): void {
    this.sources.delete(source);
  }
}
