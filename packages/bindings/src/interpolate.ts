import type { Grains } from '@brine/core';
import { grainAt, type Categorization } from './categories.js';

/** Why a string could not be interpolated; the resolver turns it into a coded error. */
export class InterpolationError extends Error {
  readonly expr: string;
  constructor(expr: string, detail: string) {
    super(detail);
    this.expr = expr;
  }
}

const VAR = /\$\$\{|\$\{([^}]*)\}/g;

/**
 * Interpolates `${...}` in every string of a value: `${node}`, `${osfamily}` (any category),
 * `${grains.os}` / `${grains:os}` (grains, nested with `.` or `:`); `$${` is a literal `${`. A
 * string that is exactly one `${...}` takes the variable's own value, so a list grain stays a list.
 */
export function interpolate(value: unknown, c: Categorization, grains: Grains): unknown {
  if (typeof value === 'string') return interpolateString(value, c, grains);
  if (Array.isArray(value)) return value.map((v) => interpolate(v, c, grains));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = interpolate(v, c, grains);
    return out;
  }
  return value;
}

function lookup(expr: string, c: Categorization, grains: Grains): unknown {
  const name = expr.trim();
  if (/^grains[.:]/.test(name)) {
    const v = grainAt(grains, name.slice(7));
    if (v === undefined) throw new InterpolationError(expr, `the minion has no grain '${name.slice(7)}'`);
    return v;
  }
  if (!c.rank.has(name)) {
    throw new InterpolationError(expr, `'${name}' is neither a category (${c.order.join(', ')}) nor grains.<name>`);
  }
  const v = c.raw.get(name);
  if (v === undefined || v === null) throw new InterpolationError(expr, `the minion has no value for category '${name}'`);
  return v;
}

function interpolateString(s: string, c: Categorization, grains: Grains): unknown {
  if (!s.includes('${')) return s;
  const whole = /^\$\{([^}]*)\}$/.exec(s);
  if (whole) return lookup(whole[1], c, grains);
  return s.replace(VAR, (_m, expr: string | undefined) => {
    if (expr === undefined) return '${';
    const v = lookup(expr, c, grains);
    return typeof v === 'string' ? v : JSON.stringify(v);
  });
}
