import { execErrors } from './errors.js';
import type { ExecFunction, ParamType } from './function-types.js';

export type { ExecContext, ExecFunction, ExecResult, ExecTable, Param, ParamType } from './function-types.js';

export function typeOf(v: unknown): ParamType {
  if (Array.isArray(v)) return 'list';
  if (v !== null && typeof v === 'object') return 'dict';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'number') return 'number';
  if (typeof v === 'boolean') return 'boolean';
  return 'any';
}

/**
 * Binds positional and keyword arguments to a function's parameters the way a Python call
 * would: too many positionals, unknown keywords, a value given twice, a missing required one
 * or a wrong type is a BRINE_ERR_EXEC_BAD_ARGS error. Keywords starting with `__` are Salt's
 * private ones (`__pub_jid`, ...) and are dropped.
 */
export function bindArgs(fn: ExecFunction, arg: unknown[], kwarg: Record<string, unknown>): Record<string, unknown> {
  const bad = (detail: string) => execErrors.make('BRINE_ERR_EXEC_BAD_ARGS', { fun: fn.name, detail });
  if (arg.length > fn.params.length && !fn.varArgs) {
    // Python's TypeError text, which Salt shows (module.run prints it alone)
    const min = fn.params.filter((p) => p.required).length;
    const max = fn.params.length;
    const takes = min === max ? `${max} positional argument${max === 1 ? '' : 's'}` : `from ${min} to ${max} positional arguments`;
    throw bad(`${fn.name.slice(fn.name.indexOf('.') + 1)}() takes ${takes} but ${arg.length} ${arg.length === 1 ? 'was' : 'were'} given`);
  }
  const out: Record<string, unknown> = {};
  arg.slice(0, fn.params.length).forEach((v, i) => (out[fn.params[i]!.name] = v));
  if (fn.varArgs) out.args = arg.slice(fn.params.length);
  for (const [k, v] of Object.entries(kwarg)) {
    if (k.startsWith('__')) continue;
    const p = fn.params.find((x) => x.name === k);
    if (!p && fn.extraKwargs) {
      ((out.kwargs ??= {}) as Record<string, unknown>)[k] = v;
      continue;
    }
    if (!p) throw bad(`unexpected keyword argument '${k}'`);
    if (k in out) throw bad(`got multiple values for argument '${k}'`);
    out[k] = v;
  }
  if (fn.extraKwargs) out.kwargs ??= {};
  for (const p of fn.params) {
    if (!(p.name in out)) {
      if (p.required) throw bad(`missing required argument '${p.name}'`);
      if (p.default !== undefined) out[p.name] = p.default;
      continue;
    }
    const types = Array.isArray(p.type) ? p.type : [p.type];
    let v = out[p.name];
    // `key=value` on the command line arrives as text; numbers and booleans may be written so
    if (typeof v === 'string' && !types.includes('string') && !types.includes('any')) {
      if (types.includes('number') && v.trim() !== '' && !Number.isNaN(Number(v))) v = Number(v);
      else if (types.includes('boolean') && /^(true|false)$/i.test(v)) v = v.toLowerCase() === 'true';
      out[p.name] = v;
    }
    // None for an optional parameter that takes no None of its own means "not given"
    if (v === null && !p.required && !types.includes('any')) {
      delete out[p.name];
      if (p.default !== undefined) out[p.name] = p.default;
      continue;
    }
    if (!types.includes('any') && !types.includes(typeOf(v))) {
      throw bad(`argument '${p.name}' must be ${types.join(' or ')}, got ${typeOf(v)}`);
    }
  }
  return out;
}
