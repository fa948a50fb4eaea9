/**
 * What a template may reach of JavaScript. Templates are untrusted: the master renders every
 * minion's SLS and pillar, where its keys and the API token live. A lookup that fell through to
 * JavaScript's properties reached `constructor` and from there `Function`, which runs any code.
 * So lookups see own data only (dict keys, list and string items, a namespace's attributes,
 * the own functions of the helper tables), the dialect's Python methods come from tables without
 * a prototype, and the function constructors can never be called.
 */

/** Names that lead into JavaScript's object model, refused on anything that is not plain data. */
const INTERNALS = new Set([
  ...Object.getOwnPropertyNames(Object.prototype),
  ...Object.getOwnPropertyNames(Function.prototype),
  '__proto__',
  'prototype',
  'constructor',
  'caller',
  'callee',
  'arguments',
]);

/** Whether `key` names one of JavaScript's internals (`constructor`, `__proto__`, `call`, ...). */
export function isInternalName(key: unknown): boolean {
  return typeof key === 'string' && INTERNALS.has(key);
}

/** A method table with no prototype: `table.constructor` is undefined, not `Object`. */
export function methodTable<T>(entries: Record<string, T>): Record<string, T> {
  return Object.assign(Object.create(null) as Record<string, T>, entries);
}

const AsyncFunction = (async () => {}).constructor;
const GeneratorFunction = function* () {}.constructor;
const AsyncGeneratorFunction = async function* () {}.constructor;

/** Callables that turn text into code or reach the host: never callable from a template. */
const FORBIDDEN_CALLS = new Set<unknown>([
  Function,
  AsyncFunction,
  GeneratorFunction,
  AsyncGeneratorFunction,
  eval,
  setTimeout,
  setInterval,
  setImmediate,
  queueMicrotask,
  Reflect.construct,
  Reflect.apply,
  Object.defineProperty,
  Object.setPrototypeOf,
  Object.assign,
]);

/** Refuses a call of one of JavaScript's code-running or object-model functions. */
export function checkCallable(fn: unknown, name: string): void {
  if (FORBIDDEN_CALLS.has(fn)) throw new Error(`SecurityError: '${name}' may not be called from a template`);
}

/**
 * What a lookup gives once the dialect's own rules found nothing: an item of a list or string by
 * index, or an own, non-internal property of an object that is not a function. Never anything a
 * prototype holds.
 */
export function ownMember(obj: unknown, key: unknown): unknown {
  if (obj === null || obj === undefined || typeof obj === 'function') return undefined;
  if (typeof key === 'number') {
    if (typeof obj === 'string' || Array.isArray(obj)) return (obj as ArrayLike<unknown>)[key];
    return undefined;
  }
  if (typeof obj !== 'object' || typeof key !== 'string' || isInternalName(key)) return undefined;
  if (!Object.hasOwn(obj, key)) return undefined;
  const v = (obj as Record<string, unknown>)[key];
  return typeof v === 'function' ? (...args: unknown[]) => (v as (...a: unknown[]) => unknown).apply(obj, args) : v;
}

/**
 * A variable by name, as nunjucks looks it up (the frames, then the render's context, then the
 * environment's globals), but from own properties only: `{{ constructor }}` is undefined.
 */
export function ownVariable(context: { ctx: Record<string, unknown>; env: { globals: Record<string, unknown> } }, frame: unknown, name: string): unknown {
  for (let f = frame as { variables?: Record<string, unknown>; parent?: unknown } | undefined; f; f = f.parent as typeof f) {
    if (f.variables && Object.hasOwn(f.variables, name) && f.variables[name] !== undefined) return f.variables[name];
  }
  if (Object.hasOwn(context.ctx, name)) return context.ctx[name];
  return Object.hasOwn(context.env.globals, name) ? context.env.globals[name] : undefined;
}
