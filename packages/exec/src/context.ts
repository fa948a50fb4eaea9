import { createCommandRunner, type CommandRunner } from '@brine/core';
import type { ExecContext } from './function.js';
import type { ExecRegistry } from './registry.js';

export const EXEC_VERSION = '0.1.0';

export interface ContextOptions {
  registry: ExecRegistry;
  grains: Record<string, unknown>;
  /** The pillar, or how to get it (the minion asks its master on first use). */
  pillar?: Record<string, unknown> | (() => Promise<Record<string, unknown>>);
  opts?: Record<string, unknown>;
  cmd?: CommandRunner;
  signal?: AbortSignal;
  jid?: string;
  version?: string;
  /** A call from the command line or a job (see ExecContext.direct). */
  direct?: boolean;
}

/** An ExecContext for this host with sensible defaults (real commands, no pillar). */
export function execContext(o: ContextOptions): ExecContext {
  const p = o.pillar ?? {};
  let cached: Promise<Record<string, unknown>> | undefined;
  return {
    jid: o.jid ?? '',
    grains: o.grains,
    pillar: typeof p === 'function' ? () => (cached ??= p()) : async () => p,
    opts: o.opts ?? {},
    version: o.version ?? EXEC_VERSION,
    signal: o.signal ?? new AbortController().signal,
    cmd: o.cmd ?? createCommandRunner(),
    registry: o.registry,
    ...(o.direct ? { direct: true } : {}),
  };
}
