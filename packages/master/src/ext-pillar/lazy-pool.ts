import type { Pillar } from '@brine/core';
import type { SqlQuery } from './sql-rows.js';

/**
 * A database pool opened at its first use and shared after: an SQL ext_pillar's connections are
 * made only when a pillar asks, and a failed open (an unreadable password file) is tried again
 * at the next ask.
 */
export function lazyPool<P extends { end(): Promise<unknown> }>(open: () => Promise<P>): { get(): Promise<P>; close(): Promise<void> } {
  let pool: Promise<P> | undefined;
  return {
    get() {
      pool ??= open().catch((e: unknown) => {
        pool = undefined;
        throw e;
      });
      return pool;
    },
    async close() {
      const p = await pool?.catch(() => undefined);
      await p?.end().catch(() => undefined);
      pool = undefined;
    },
  };
}

/** What the plan needs of an SQL ext_pillar's server (postgres, mysql). */
export interface SqlPillarDb {
  /** Where it is, as it may be shown (no password). */
  readonly location: string;
  /** Throws a config error for a query the dialect cannot take (its placeholders). */
  check(query: string): void;
  fetch(id: string, queries: SqlQuery[]): Promise<Pillar>;
  close(): Promise<void>;
}
