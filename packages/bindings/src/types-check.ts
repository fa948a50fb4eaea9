import { isPlainObject } from './pillar-tree.js';

/** The type names a binding may declare (case does not matter; `Array[String]` reads as array). */
export const TYPE_NAMES = ['string', 'integer', 'float', 'number', 'boolean', 'array', 'hash', 'scalar', 'data', 'any'];

export function baseType(type: string): string {
  return type.trim().toLowerCase().replace(/\[.*$/, '');
}

function kindOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (isPlainObject(v)) return 'a hash';
  if (typeof v === 'number') return Number.isInteger(v) ? 'an integer' : 'a float';
  return `a ${typeof v}`;
}

/** undefined when `v` is of `type`, else what it is instead ("a string"). */
export function checkType(type: string, v: unknown): string | undefined {
  const t = baseType(type);
  const ok =
    t === 'any' || t === 'data'
      ? true
      : t === 'string'
        ? typeof v === 'string'
        : t === 'integer'
          ? Number.isInteger(v)
          : t === 'float' || t === 'number'
            ? typeof v === 'number'
            : t === 'boolean'
              ? typeof v === 'boolean'
              : t === 'array'
                ? Array.isArray(v)
                : t === 'hash'
                  ? isPlainObject(v)
                  : t === 'scalar'
                    ? v !== null && typeof v !== 'object'
                    : false;
  return ok ? undefined : kindOf(v);
}
