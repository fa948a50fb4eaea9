import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Identity } from './auth/permissions.js';

/** A signed-in console user: an HttpOnly cookie names the session; `csrf` must come back in a header. */
export interface UiSession {
  csrf: string;
  expires: number;
  /** Who signed in (the token's holder, or a user with a password). */
  identity: Identity;
}

export const SESSION_COOKIE = 'brine_session';
export const CSRF_HEADER = 'x-csrf-token';
const LIFETIME_MS = 12 * 3600_000;
const MAX_SESSIONS = 1000;

/**
 * The console's sessions, in memory: signing in trades the API token (posted once, never in a
 * URL) for a random session id in an HttpOnly, SameSite=Strict cookie. Every state-changing call
 * must also carry the session's CSRF token in a header, which another site cannot read or set.
 */
export class UiSessions {
  private readonly sessions = new Map<string, UiSession>();
  /** The clock (tests pass their own, to expire a session without waiting 12 hours). */
  private readonly now: () => number;
  constructor(now: () => number = Date.now) {
    this.now = now;
  }

  create(identity: Identity): { id: string; session: UiSession } {
    const now = this.now();
    for (const [id, s] of this.sessions) if (s.expires < now) this.sessions.delete(id);
    // the oldest go first when many sign in (Map keeps insertion order)
    while (this.sessions.size >= MAX_SESSIONS) this.sessions.delete(this.sessions.keys().next().value!);
    const id = randomBytes(32).toString('base64url');
    const session = { csrf: randomBytes(32).toString('base64url'), expires: now + LIFETIME_MS, identity };
    this.sessions.set(id, session);
    return { id, session };
  }

  get(id: string | undefined): UiSession | undefined {
    if (!id) return undefined;
    const s = this.sessions.get(id);
    if (!s) return undefined;
    if (s.expires < this.now()) {
      this.sessions.delete(id);
      return undefined;
    }
    return s;
  }

  end(id: string | undefined): void {
    if (id) this.sessions.delete(id);
  }

  static csrfMatches(given: unknown, want: string): boolean {
    if (typeof given !== 'string' || given.length !== want.length) return false;
    return timingSafeEqual(Buffer.from(given), Buffer.from(want));
  }
}
