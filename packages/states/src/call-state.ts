import { bindStateArgs, failedReturn as fail, moduleAvailability, normaliseReturn as normalise } from '@brine/core';
import type { LowChunk, StateContext, StateFunction, StateModule, StateRegistry, StateReturn } from '@brine/core';

function thrownComment(err: unknown): string {
  const msg = err instanceof Error ? err.message : String(err);
  return `An exception occurred in this state: ${msg}`;
}

/** Finds the function for a chunk, or the comment Salt gives when there is none usable. */
async function resolve(registry: StateRegistry, chunk: LowChunk, fun: string): Promise<{ module: StateModule; fn?: StateFunction } | { error: string }> {
  const full = `${chunk.state}.${fun}`;
  const notFound = `State '${full}' was not found in SLS '${chunk.__sls__}'`;
  const module = registry.module(chunk.state);
  if (!module) return { error: notFound };
  const avail = await moduleAvailability(module);
  if (!avail.available) {
    return { error: `${notFound}\nReason: '${module.name}' is not available on this host: ${avail.reason ?? 'no reason given'}` };
  }
  const found = registry.lookup(chunk.state, fun);
  return { module, fn: found?.fn };
}

/**
 * Calls the state function a chunk names, after checking its arguments. Never throws: an unknown
 * function, a module that does not work here, bad arguments or a function that throws all come
 * back as a failed StateReturn with the reason in the comment.
 */
export async function callState(registry: StateRegistry, chunk: LowChunk, ctx: StateContext): Promise<StateReturn> {
  const full = `${chunk.state}.${chunk.fun}`;
  try {
    const r = await resolve(registry, chunk, chunk.fun);
    if ('error' in r) return fail(chunk, r.error);
    if (!r.fn) return fail(chunk, `State '${full}' was not found in SLS '${chunk.__sls__}'`);
    const bound = bindStateArgs(full, r.fn, chunk);
    if ('error' in bound) return fail(chunk, bound.error);
    return normalise(chunk, await r.fn.run(bound.args, ctx), full);
  } catch (err) {
    return fail(chunk, thrownComment(err));
  }
}

/** Whether the chunk's module reacts to `watch` (has mod_watch); without one, watch acts as require. */
export function hasModWatch(registry: StateRegistry, state: string): boolean {
  return typeof registry.module(state)?.modWatch === 'function';
}

/**
 * Calls the module's mod_watch for a chunk whose watched states changed. The arguments are the
 * chunk's (bound like callState's) plus `sfun`, the chunk's own function. The runtime may put the
 * watched chunks under `__reqs__.watch` in the chunk it passes in ctx.low.
 */
export async function callModWatch(registry: StateRegistry, chunk: LowChunk, ctx: StateContext): Promise<StateReturn> {
  const full = `${chunk.state}.mod_watch`;
  try {
    const r = await resolve(registry, chunk, chunk.fun);
    if ('error' in r) return fail(chunk, r.error);
    if (!r.module.modWatch) return fail(chunk, `State '${full}' was not found in SLS '${chunk.__sls__}'`);
    let args: Record<string, unknown>;
    if (r.fn) {
      // mod_watch sees what the chunk says, not the function's defaults (as Salt's kwargs).
      const bound = bindStateArgs(`${chunk.state}.${chunk.fun}`, r.fn, chunk, false);
      if ('error' in bound) return fail(chunk, bound.error);
      args = bound.args;
    } else {
      args = { name: chunk.name };
    }
    args.sfun = chunk.fun;
    return normalise(chunk, await r.module.modWatch(args, ctx), full);
  } catch (err) {
    return fail(chunk, thrownComment(err));
  }
}
