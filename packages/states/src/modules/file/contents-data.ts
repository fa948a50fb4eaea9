import type { ArgSpec, StateContext, StateReturn } from '@brine/core';
import { failed, start } from './common.js';

/** file.managed's contents taken from the pillar or the grains, as Salt's contents_pillar / contents_grains. */
export const contentsDataArgs: Record<string, ArgSpec> = {
  contents_pillar: { type: ['string', 'list'] },
  contents_grains: { type: ['string', 'list'] },
  contents_delimiter: { type: 'string', default: ':' },
  allow_empty: { type: 'boolean' },
};

const NOT_FOUND = Symbol('not found');

/** pillar.get / grains.get with a delimiter: nested dicts by key, lists by index. */
function lookup(data: unknown, key: string, delimiter: string): unknown {
  let cur: unknown = data;
  for (const part of key.split(delimiter)) {
    if (Array.isArray(cur) && /^-?\d+$/.test(part)) cur = cur.at(Number(part));
    else if (cur !== null && typeof cur === 'object' && !Array.isArray(cur) && Object.hasOwn(cur, part)) cur = (cur as Record<string, unknown>)[part];
    else return NOT_FOUND;
    if (cur === undefined) return NOT_FOUND;
  }
  return cur;
}

/** Python's str() for the scalars a pillar holds. */
const pyStr = (v: unknown): string =>
  v === true ? 'True' : v === false ? 'False' : v === null ? 'None' : typeof v === 'object' ? JSON.stringify(v) : String(v);

/** Python truthiness of the looked-up value (Salt's allow_empty test). */
const empty = (v: unknown): boolean =>
  v === '' ||
  v === null ||
  v === false ||
  v === 0 ||
  (Array.isArray(v) && v.length === 0) ||
  (typeof v === 'object' && v !== null && Object.keys(v).length === 0);

/**
 * Resolves contents_pillar / contents_grains into `contents` before file.managed runs, with
 * Salt's checks and wording; a `file_mode` keyword earns Salt's warning. Salt joins a list's
 * values with newlines and ends every line with one (unless contents_newline is false).
 */
export function withContentsData(args: Record<string, unknown>, ctx: StateContext, managed: Managed): StateReturn | Promise<StateReturn> {
  const warnings = ctx.low.file_mode !== undefined ? ["The 'file_mode' argument will be ignored.  Please use 'mode' instead to set file permissions."] : [];
  const warn = (r: StateReturn): StateReturn => (warnings.length ? { ...r, warnings: [...((r.warnings as string[] | undefined) ?? []), ...warnings] } : r);
  const { contents_pillar: pillarKey, contents_grains: grainsKey, contents_delimiter: delimiter, allow_empty: allowEmpty, ...rest } = args;
  if (pillarKey === undefined && grainsKey === undefined) {
    // no promise of its own: file.managed may answer without one
    const r = managed(rest, ctx);
    return r instanceof Promise ? r.then(warn) : warn(r);
  }
  return fromData(args, ctx, managed, warn, { pillarKey, grainsKey, delimiter, allowEmpty, rest });
}

type Managed = (args: Record<string, unknown>, ctx: StateContext) => StateReturn | Promise<StateReturn>;

interface DataArgs {
  pillarKey: unknown;
  grainsKey: unknown;
  delimiter: unknown;
  allowEmpty: unknown;
  rest: Record<string, unknown>;
}

async function fromData(
  args: Record<string, unknown>,
  ctx: StateContext,
  managed: Managed,
  warn: (r: StateReturn) => StateReturn,
  { pillarKey, grainsKey, delimiter, allowEmpty, rest }: DataArgs,
): Promise<StateReturn> {
  const given = [args.contents, pillarKey, grainsKey].filter((x) => x !== undefined && x !== null).length;
  if (given === 0) return warn(await managed(rest, ctx));
  const ret = start(String(args.name));
  if (args.source) return warn(failed(ret, "'source' cannot be used in combination with 'contents', 'contents_pillar', or 'contents_grains'"));
  if (given > 1) return warn(failed(ret, "Only one of 'contents', 'contents_pillar', and 'contents_grains' is permitted"));
  const [what, key, data] = pillarKey !== undefined ? ['Pillar', pillarKey, ctx.templateContext?.pillar] : ['Grain', grainsKey, ctx.templateContext?.grains];
  const delim = typeof delimiter === 'string' ? delimiter : ':';
  let value: unknown;
  if (Array.isArray(key)) {
    const parts: string[] = [];
    for (const k of key) {
      const v = lookup(data ?? {}, String(k), delim);
      if (v === NOT_FOUND) return warn(failed(ret, `${what} ${String(k)} does not exist`));
      parts.push(pyStr(v));
    }
    value = parts.join('\n');
  } else {
    value = lookup(data ?? {}, String(key), delim);
    if (value === NOT_FOUND) return warn(failed(ret, `${what} ${String(key)} does not exist`));
  }
  if (allowEmpty === false && empty(value)) {
    const id = pillarKey !== undefined ? `contents_pillar ${pyStr(pillarKey)}` : `contents_grains ${pyStr(grainsKey)}`;
    return warn(failed(ret, `${id} value would result in empty contents. Set allow_empty to True to allow the managed file to be empty.`));
  }
  const items = Array.isArray(value) ? value.map(pyStr) : [pyStr(value)];
  let text = items
    .flatMap((p) => p.split(/\r\n|\r|\n/).filter((l, i, all) => i < all.length - 1 || l !== ''))
    .map((l) => `${l}\n`)
    .join('');
  if (args.contents_newline === false) text = text.replace(/\n$/, '').replace(/\r$/, '');
  return warn(await managed({ ...rest, contents: text, contents_newline: false }, ctx));
}
