import type { LowChunk } from '@brine/core';

/**
 * Arguments of the state-run functions (state.apply, state.sls, state.single), read the same way
 * by the minion and by `brine local`.
 */

/** Salt's truthiness for flags such as `test=True`, given as strings, booleans or numbers. */
export function isTrue(v: unknown): boolean {
  if (typeof v === 'string') return /^(true|yes|on|1)$/i.test(v);
  return v === true || v === 1;
}

/** SLS names from `a,b`, `[a, b]` or several such values (positionals and `mods=`). */
export function slsNames(...values: unknown[]): string[] {
  const out: string[] = [];
  for (const v of values) {
    if (v === undefined || v === null) continue;
    for (const s of Array.isArray(v) ? v.map(String) : [String(v)]) {
      out.push(
        ...s
          .split(',')
          .map((x) => x.trim())
          .filter(Boolean),
      );
    }
  }
  return out;
}

/**
 * The one low chunk of `state.single <module.function> name=... key=value...`, or undefined when
 * `fun` is not module.function. Like Salt, the identity keys win over same-named arguments.
 */
export function singleChunk(fun: string, name: unknown, args: Record<string, unknown>, env = 'base'): LowChunk | undefined {
  const dot = fun.indexOf('.');
  if (dot <= 0) return undefined;
  const id = String(name);
  return { order: 10000, ...args, state: fun.slice(0, dot), fun: fun.slice(dot + 1), name: id, __id__: id, __sls__: 'state.single', __env__: env } as LowChunk;
}
