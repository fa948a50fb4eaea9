/**
 * The runtime half of our Jinja dialect: what compiled templates call for Python semantics
 * (truthiness, slices, `%` formatting, `==` across types, namespaces, `loop.cycle`) and how a
 * failure is marked with its template and position. The parser and compiler are in dialect.ts.
 */
import { nunjucks } from './nunjucks-lib.js';
import { memberLookup, methodLookup } from './methods.js';
import { pyHooks } from './py-object.js';
import { isDict, isStringLike, percentFormat, pyEq as eq, pyIn, pyLess, str, truthy, tuple } from './python.js';
import { keysOf, setKey } from '@brine/core';
import { checkCallable, isInternalName, ownVariable } from './sandbox.js';
import { fastFrameSet } from './frame-set.js';

const baseRuntime: any = nunjucks.runtime;
fastFrameSet(baseRuntime.Frame);

/** Jinja's namespace(): the one object templates may assign attributes to. */
export class Namespace {
  constructor(init: Record<string, unknown>) {
    Object.assign(this, init);
  }
}

function slice(obj: unknown, start: number | null, stop: number | null, step: number | null): unknown {
  if (obj === undefined || obj === null) return obj;
  const isStr = isStringLike(obj);
  const seq: unknown[] = isStr ? [...String(obj)] : Array.isArray(obj) ? obj : [];
  const n = seq.length;
  const st = step ?? 1;
  if (st === 0) throw new Error('ValueError: slice step cannot be zero');
  const norm = (v: number | null, dflt: number, lo: number, hi: number) => {
    if (v === null) return dflt;
    const x = v < 0 ? v + n : v;
    return Math.min(Math.max(x, lo), hi);
  };
  const out: unknown[] = [];
  if (st > 0) {
    for (let i = norm(start, 0, 0, n), e = norm(stop, n, 0, n); i < e; i += st) out.push(seq[i]);
  } else {
    for (let i = norm(start, n - 1, -1, n - 1), e = norm(stop, -1, -1, n - 1); i > e; i += st) out.push(seq[i]);
  }
  return isStr ? out.join('') : out;
}

/** Where a template error happened; set once, by the innermost template that saw it. */
export interface TemplateWhere {
  file?: string;
  line?: number;
  column?: number;
}

function templateError(message: string, lineno: number, colno: number): Error {
  const e = new Error(message) as Error & { brineWhere?: TemplateWhere };
  e.brineWhere = { line: lineno + 1, column: colno + 1 };
  return e;
}

/** Marks an error with the template and position (0-based from the compiled code). */
export function annotate(e: any, file: string, lineno: number | undefined, colno: number | undefined): any {
  if (e === null || typeof e !== 'object') e = new Error(String(e));
  const where: TemplateWhere | undefined = e.brineWhere;
  if (!where) e.brineWhere = { file, line: lineno === undefined ? undefined : lineno + 1, column: colno === undefined ? undefined : colno + 1 };
  else if (where.file === undefined) where.file = file;
  return e;
}

/**
 * The largest string or list `*` may make (Jinja's sandbox bounds `range` likewise): a render
 * that asks for more fails at once instead of spending the render deadline and the worker's
 * memory on it.
 */
export const REPEAT_LIMIT = 10_000_000;

function sizeChecked(unit: number, times: number): number {
  if (unit * times > REPEAT_LIMIT) throw new Error(`OverflowError: the result of * would hold ${unit * times} items (at most ${REPEAT_LIMIT} in a template)`);
  return unit;
}

/**
 * How long one template may render (Salt has no such limit; a Brine master serves many minions
 * from one event loop). Loop iterations check the clock now and then; past the deadline the
 * render fails with BRINE_ERR_COMPILE_RENDER_TIMEOUT naming the template.
 */
let renderTimeoutMs = 30_000;
let deadline = Infinity;
let ticks = 0;

/** Sets the time limit of one render (the master's render_timeout, in seconds). */
export function setRenderTimeout(seconds: number): void {
  renderTimeoutMs = seconds * 1000;
}

/** Runs a top-level render under the time limit (a template it includes or imports shares it). */
export function withRenderDeadline<T>(fn: () => T): T {
  if (deadline !== Infinity) return fn();
  deadline = Date.now() + renderTimeoutMs;
  try {
    return fn();
  } finally {
    deadline = Infinity;
  }
}

export const dialectRuntime: any = Object.create(baseRuntime);
Object.assign(dialectRuntime, {
  loopCycle:
    (i: number) =>
    (...items: unknown[]) =>
      items.length ? items[i % items.length] : undefined,
  setAttr(obj: unknown, key: unknown, value: unknown) {
    if (!(obj instanceof Namespace)) throw new Error('cannot assign attribute on non-namespace object');
    if (isInternalName(key)) throw new Error(`SecurityError: cannot assign attribute '${String(key)}'`);
    (obj as unknown as Record<string, unknown>)[String(key)] = value;
  },
  contextOrFrameLookup: ownVariable,
  callWrap(fn: unknown, name: string, context: unknown, args: unknown[], lineno = 0, colno = 0) {
    checkCallable(fn, name);
    // a macro that recurses without a loop still meets the render deadline here
    dialectRuntime.tick(lineno, colno);
    return baseRuntime.callWrap(fn, name, context, args);
  },
  memberLookup,
  methodLookup,
  tuple,
  inOperator: pyIn,
  lt: (a: unknown, b: unknown) => pyLess(a, b),
  gt: (a: unknown, b: unknown) => pyLess(b, a),
  le: (a: unknown, b: unknown) => !pyLess(b, a),
  ge: (a: unknown, b: unknown) => !pyLess(a, b),
  spreadKwargs(named: Record<string, unknown>, more: unknown) {
    if (more === undefined || more === null) return named;
    if (!isDict(more)) throw new TypeError('argument after ** must be a mapping');
    return Object.assign({}, named, more);
  },
  spreadArgs(items: unknown): unknown[] {
    const list = iterate(items);
    if (!Array.isArray(list)) throw new TypeError('argument after * must be an iterable');
    return list;
  },
  globalsFor: (context: any, path: string) => globalsFor(context.ctx, path),
  /**
   * The frame a template imported `with context` runs in: nunjucks pushes it on the importer's,
   * where a top-level `set` of a name the importer has wrote into the importer's variable.
   * Jinja's module gets a copy of the context; an isolating frame keeps the writes inside.
   */
  importFrame: (frame: any) => ({ push: () => frame.push(true) }),
  test(env: any, context: any, name: string, value: unknown, args: unknown[]): boolean {
    const fn = env.tests[name];
    if (typeof fn !== 'function') throw new Error(`no test named '${name}'`);
    return truthy(fn.call(context, value, ...args));
  },
  loopFilter(arr: unknown, pairs: boolean, keep: (item: unknown) => boolean): unknown[] {
    let items = iterate(arr);
    if (pairs && isDict(arr)) items = keysOf(arr).map((k) => [k, arr[k]]);
    if (items === undefined || items === null) return [];
    if (!Array.isArray(items)) items = [...(items as Iterable<unknown>)];
    return (items as unknown[]).filter(keep);
  },
  unpack(value: unknown, n: number): unknown[] {
    const items = iterate(value);
    const list = Array.isArray(items) ? items : [];
    if (list.length !== n) throw new Error(`ValueError: ${list.length < n ? 'not enough' : 'too many'} values to unpack (expected ${n}, got ${list.length})`);
    return list;
  },
  truthy,
  slice,
  eq,
  constant(name: string, context: any, frame: any) {
    const v = baseRuntime.contextOrFrameLookup(context, frame, name);
    if (v !== undefined) return v;
    return name === 'True' ? true : name === 'False' ? false : null;
  },
  or: (a: unknown, b: () => unknown) => (truthy(a) ? a : b()),
  and: (a: unknown, b: () => unknown) => (truthy(a) ? b() : a),
  add(a: any, b: any) {
    if (Array.isArray(a) && Array.isArray(b)) return [...a, ...b];
    if (isStringLike(a) && isStringLike(b)) return String(a) + String(b);
    if (typeof a === 'string' || typeof b === 'string') {
      throw new TypeError(`unsupported operand type(s) for +: '${typeof a}' and '${typeof b}'`);
    }
    return a + b;
  },
  mul(a: any, b: any) {
    if (isStringLike(a) && typeof b === 'number') {
      sizeChecked(String(a).length, b);
      return String(a).repeat(Math.max(0, b));
    }
    if (Array.isArray(a) && typeof b === 'number') {
      sizeChecked(a.length, b);
      const out: unknown[] = [];
      for (let i = 0; i < b; i++) out.push(...a);
      return out;
    }
    return a * b;
  },
  mod(a: any, b: any) {
    if (isStringLike(a)) return percentFormat(String(a), b);
    const r = a % b;
    return r !== 0 && r < 0 !== b < 0 ? r + b : r;
  },
  concat: (a: unknown, b: unknown) => (a === undefined ? '' : str(a)) + (b === undefined ? '' : str(b)),
  tick(lineno: number, colno: number) {
    if ((++ticks & 255) !== 0 || Date.now() <= deadline) return;
    const e = templateError(
      `render_timeout: the template ran for more than ${renderTimeoutMs / 1000} s (a loop that does not end soon enough)`,
      lineno,
      colno,
    ) as Error & {
      brineCode?: string;
    };
    e.brineCode = 'BRINE_ERR_COMPILE_RENDER_TIMEOUT';
    throw e;
  },
  /** Runs a callback-style nunjucks call that completes synchronously (every loader here is sync). */
  syncCall(start: (cb: (err: unknown, res?: unknown) => void) => void): unknown {
    let done = false;
    let error: unknown;
    let result: unknown;
    start((err, res) => {
      done = true;
      error = err;
      result = res;
    });
    if (!done) throw new Error('a template loaded asynchronously');
    if (error) throw error;
    return result;
  },
  dict(pairs: Array<[unknown, unknown]>) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of pairs) setKey(out, str(k), v);
    return out;
  },
  output(val: unknown, lineno: number, colno: number, name: string) {
    if (val === undefined) throw templateError(`'${name}' is undefined`, lineno, colno);
    return typeof val === 'string' ? val : str(val);
  },
  suppressValue(val: unknown) {
    return val === undefined ? '' : typeof val === 'string' ? val : str(val);
  },
});

/**
 * What a template loaded without context sees: the render's globals with the `tpl*` variables of
 * that template, as Salt's loader sets them on the environment when it loads a template.
 */
export function globalsFor(ctx: Record<string, unknown>, path: string): Record<string, unknown> {
  const base = (ctx.__brine_globals as Record<string, unknown> | undefined) ?? {};
  const slash = path.lastIndexOf('/');
  const dir = slash < 0 ? '' : path.slice(0, slash);
  const out: Record<string, unknown> = { ...base, tplfile: path, tpldir: dir === '' ? '.' : dir, tpldot: dir.replace(/\//g, '.') };
  out.__brine_globals = out;
  return out;
}

/** `for x in y` over a dict yields its keys; over a string its characters. */
export function iterate(v: unknown): unknown {
  const hooks = pyHooks(v);
  if (hooks?.iter) return hooks.iter();
  if (isDict(v)) return keysOf(v);
  if (isStringLike(v)) return [...String(v)];
  return v;
}
