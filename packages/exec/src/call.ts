import type { ExecCaller } from '@brine/core';
import { bindArgs, type ExecContext, type ExecResult, type ExecTable } from './function.js';

/** Runs `name` with Salt-style arguments and gives the whole result (value and retcode). */
export async function runExec(
  registry: ExecTable,
  name: string,
  args: unknown[],
  kwargs: Record<string, unknown>,
  ctx: ExecContext,
): Promise<ExecResult & { retcode: number }> {
  const fn = registry.get(name);
  const r = await fn.run(bindArgs(fn, args, kwargs), ctx);
  return { return: r.return, retcode: r.retcode ?? 0 };
}

/**
 * Runs `name` and gives its value, as `salt['mod.fun'](...)` does in a template or module.run;
 * an unknown function or bad arguments throw coded errors.
 */
export async function callExec(registry: ExecTable, name: string, args: unknown[], kwargs: Record<string, unknown>, ctx: ExecContext): Promise<unknown> {
  return (await runExec(registry, name, args, kwargs, ctx)).return;
}

/**
 * The host's execution functions as states see them (core's ExecCaller): calls from code, so
 * not `direct` (cmd.* without a shell unless asked, as Salt's cross-module calls).
 */
export function execCaller(registry: ExecTable, ctx: ExecContext): ExecCaller {
  const codeCtx: ExecContext = { ...ctx, registry, direct: false };
  return {
    call: (fun, args, kwargs) => runExec(registry, fun, args, kwargs, codeCtx),
    spec: (fun) => registry.lookup(fun),
  };
}
