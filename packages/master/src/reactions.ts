import { isDict } from '@brine/core';

/** What a rendered reactor SLS asks for, one entry per `<kind>.<fun>` declaration, in file order. */
export interface Reaction {
  /** The declaration's ID in the reactor file. */
  id: string;
  kind: 'local' | 'runner' | 'wheel';
  fun: string;
  file: string;
  line: number;
  /** local only: the target and its type (Salt's tgt, tgt_type, or the old expr_form). */
  tgt?: string | string[];
  tgt_type?: string;
  arg: unknown[];
  kwarg: Record<string, unknown>;
}

/** Keys the reactor itself reads (Salt's REACTOR_INTERNAL_KEYWORDS and the wrappers' own). */
const INTERNAL = new Set(['__id__', '__sls__', '__env__', 'name', 'order', 'fun', 'key', 'state', 'arg', 'kwarg', 'args']);

/** Salt's repack_dictlist: `[{a: 1}, {b: 2}]` -> `{a: 1, b: 2}`; undefined when it is no such list. */
function repack(v: unknown): Record<string, unknown> | undefined {
  if (isDict(v)) return { ...v };
  if (!Array.isArray(v)) return undefined;
  const out: Record<string, unknown> = {};
  for (const item of v) {
    if (!isDict(item)) return undefined;
    Object.assign(out, item);
  }
  return out;
}

export class ReactionError extends Error {
  readonly id: string;
  readonly line: number;
  constructor(id: string, line: number, message: string) {
    super(message);
    this.id = id;
    this.line = line;
  }
}

/**
 * The reactions of one rendered reactor file, as Salt's ReactWrap reads them: `cmd.` is `local.`;
 * `args` (a list of one-key dicts) are the keyword arguments and `arg`/`kwarg` beside it are
 * ignored (as Salt warns); without `args`, `arg` and `kwarg` are used, and for runner and wheel
 * every other key is a keyword argument (for local, other keys are publish options Brine ignores). A declaration of another kind (`caller.`) or without a
 * target is an error naming its line.
 */
export function reactionsOf(high: Record<string, unknown>, file: string, lineOf: (id: string) => number): { reactions: Reaction[]; errors: ReactionError[] } {
  const reactions: Reaction[] = [];
  const errors: ReactionError[] = [];
  for (const [id, body] of Object.entries(high)) {
    if (id.startsWith('__')) continue;
    const line = lineOf(id);
    if (!isDict(body)) {
      errors.push(new ReactionError(id, line, 'a reaction is a dictionary of <kind>.<function>: [arguments]'));
      continue;
    }
    for (const [key, value] of Object.entries(body)) {
      if (key.startsWith('__') || key === 'order') continue;
      const dot = key.indexOf('.');
      const kind = dot > 0 ? (key.slice(0, dot) === 'cmd' ? 'local' : key.slice(0, dot)) : '';
      const fun = key.slice(dot + 1);
      if (kind !== 'local' && kind !== 'runner' && kind !== 'wheel') {
        errors.push(new ReactionError(id, line, `'${key}' is not a reaction Brine runs (local.<fun>, runner.<fun>, wheel.key.<fun>)`));
        continue;
      }
      const kw = repack(value ?? []);
      if (!kw || !fun) {
        errors.push(new ReactionError(id, line, `'${key}' takes a list of one-key dictionaries (- tgt: ..., - args: ...)`));
        continue;
      }
      const r = reactionFrom(id, kind, fun, file, line, kw);
      if (r instanceof ReactionError) errors.push(r);
      else reactions.push(r);
    }
  }
  return { reactions, errors };
}

function reactionFrom(id: string, kind: Reaction['kind'], fun: string, file: string, line: number, kw: Record<string, unknown>): Reaction | ReactionError {
  let arg: unknown[] = [];
  let kwarg: Record<string, unknown> = {};
  if (kw.args !== undefined) {
    const packed = repack(kw.args);
    if (!packed) return new ReactionError(id, line, "'args' is a list of one-key dictionaries (- args:\\n    - mods: web)");
    kwarg = packed;
  } else {
    if (kw.arg !== undefined) arg = Array.isArray(kw.arg) ? [...(kw.arg as unknown[])] : [kw.arg];
    if (kw.kwarg !== undefined) {
      if (!isDict(kw.kwarg)) return new ReactionError(id, line, "'kwarg' is a dictionary");
      kwarg = { ...kw.kwarg };
    }
    if (kind !== 'local') {
      for (const [k, v] of Object.entries(kw)) if (!INTERNAL.has(k) && !(k in kwarg)) kwarg[k] = v;
    }
  }
  const r: Reaction = { id, kind, fun, file, line, arg, kwarg };
  if (kind === 'local') {
    const tgt = kw.tgt;
    if (typeof tgt !== 'string' && !(Array.isArray(tgt) && tgt.every((x) => typeof x === 'string'))) {
      return new ReactionError(id, line, `local.${fun} needs a target: - tgt: <target>`);
    }
    r.tgt = tgt as string | string[];
    const type = kw.tgt_type ?? kw.expr_form;
    if (type !== undefined) r.tgt_type = String(type);
  }
  return r;
}
