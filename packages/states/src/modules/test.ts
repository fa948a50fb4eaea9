import { chunkTag, type LowChunk, type StateContext, type StateModule, type StateReturn } from '@brine/core';

const CHANGE_DATA = { testing: { old: 'Unchanged', new: 'Something pretended to change' } };

/** Keys of a test state that steer the function itself, not the resource it pretends to be. */
const OWN_KEYS = new Set(['name', 'comment', 'result', 'changes', 'warnings', 'text', 'old_state', 'new_state', 'sfun']);

/**
 * The resource contract for test states: new_state is the name plus any extra keyword given,
 * unless new_state/old_state are given outright (handy for argument-binding tests).
 */
function resource(args: Record<string, unknown>, ret: StateReturn): StateReturn {
  const extra: Record<string, unknown> = { name: args.name };
  for (const k in args) if (!OWN_KEYS.has(k) && Object.hasOwn(args, k)) extra[k] = args[k];
  ret.old_state = 'old_state' in args ? args.old_state : { name: args.name };
  ret.new_state = 'new_state' in args ? args.new_state : extra;
  return ret;
}

function str(v: unknown, fallback: string): string {
  return typeof v === 'string' ? v : fallback;
}

function base(args: Record<string, unknown>, result: boolean | null, comment: string, changes = {}): StateReturn {
  return { name: String(args.name), changes, result, comment };
}

/** Random choice for the "Random" options of configurable_test_state. */
function coin(): boolean {
  return Math.random() < 0.5;
}

function isRandom(v: unknown): boolean {
  return typeof v === 'string' && v.toLowerCase() === 'random';
}

function configurable(args: Record<string, unknown>, ctx: StateContext): StateReturn {
  const comment = str(args.comment, '');
  const ret = base(args, false, comment);
  const { changes, result, warnings } = args;
  if (changes === true) ret.changes = structuredClone(CHANGE_DATA);
  else if (changes === false) ret.changes = {};
  else if (isRandom(changes)) ret.changes = coin() ? structuredClone(CHANGE_DATA) : {};
  else {
    ret.comment =
      "An exception occurred in this state: You have specified the state option 'changes' with invalid arguments. " +
      "It must be either True, False, or 'Random'";
    return ret;
  }
  if (typeof result === 'boolean') ret.result = result;
  else if (isRandom(result)) ret.result = coin();
  else {
    ret.changes = {};
    ret.result = false;
    ret.comment =
      "An exception occurred in this state: You have specified the state option 'result' with invalid arguments. " +
      "It must be either True, False, or 'Random'";
    return ret;
  }
  if (typeof warnings === 'string') ret.warnings = [warnings];
  else if (Array.isArray(warnings)) ret.warnings = warnings;
  if (ctx.test) {
    ret.result = changes === false ? true : null;
    ret.comment = comment || 'This is a test';
  }
  return ret;
}

/** Requisite entries `{state: id_or_name}` of a chunk's watch lists. */
function watchRefs(low: LowChunk): Array<[string, string]> {
  const refs: Array<[string, string]> = [];
  for (const key of ['watch', 'watch_any']) {
    const list = low[key];
    if (!Array.isArray(list)) continue;
    for (const item of list) {
      if (item && typeof item === 'object') {
        for (const [k, v] of Object.entries(item as Record<string, unknown>)) refs.push([k, String(v)]);
      }
    }
  }
  return refs;
}

/** The watched states that changed, as `state: id` (Salt's "Requisites with changes"). */
function watchedWithChanges(ctx: StateContext): string[] {
  const out: string[] = [];
  const changed = (c: LowChunk) => {
    const r = ctx.running[chunkTag(c)];
    return r?.changes && Object.keys(r.changes).length > 0;
  };
  const reqs = (ctx.low.__reqs__ as { watch?: LowChunk[] } | undefined)?.watch;
  if (Array.isArray(reqs)) {
    for (const c of reqs) if (changed(c)) out.push(`${c.state}: ${c.__id__}`);
    return out;
  }
  const seen = new Set<string>();
  for (const [state, target] of watchRefs(ctx.low)) {
    for (const c of ctx.lowstate) {
      const hit = state === 'sls' ? c.__sls__ === target : c.state === state && (c.__id__ === target || c.name === target);
      if (!hit) continue;
      const tag = chunkTag(c);
      if (seen.has(tag)) continue;
      seen.add(tag);
      if (changed(c)) out.push(`${c.state}: ${c.__id__}`);
    }
  }
  return out;
}

const commentArg = { comment: { type: 'string' as const } };

/** Pillar lookup with Salt's `a:b:c` traversal through dicts and list indexes. */
function pillarGet(ctx: StateContext, key: string): unknown {
  let cur: unknown = (ctx.templateContext as { pillar?: unknown } | undefined)?.pillar;
  for (const part of key.split(':')) {
    if (Array.isArray(cur) && /^-?\d+$/.test(part)) cur = cur[Number(part) < 0 ? cur.length + Number(part) : Number(part)];
    else if (cur && typeof cur === 'object' && !Array.isArray(cur) && Object.hasOwn(cur, part)) cur = (cur as Record<string, unknown>)[part];
    else return undefined;
  }
  return cur;
}

/** The kinds check_pillar tells apart, named as Salt prints the Python types (bool counts as int there). */
const PILLAR_KINDS: Array<[string, string | null, (v: unknown) => boolean]> = [
  ['present', null, () => true],
  ['boolean', "<class 'bool'>", (v) => typeof v === 'boolean'],
  ['integer', "<class 'int'>", (v) => typeof v === 'boolean' || (typeof v === 'number' && Number.isInteger(v)) || typeof v === 'bigint'],
  ['string', "(<class 'str'>,)", (v) => typeof v === 'string'],
  ['listing', "<class 'list'>", (v) => Array.isArray(v)],
  ['dictionary', "<class 'dict'>", (v) => v !== null && typeof v === 'object' && !Array.isArray(v)],
];

function checkPillar(args: Record<string, unknown>, ctx: StateContext): StateReturn {
  const ret = base(args, true, '');
  if (!PILLAR_KINDS.some(([arg]) => args[arg])) return base(args, false, 'An exception occurred in this state: Missing required argument text.');
  const failed = new Map<string, string | null>();
  const fine = new Map<string, string | null>();
  for (const [arg, kind, test] of PILLAR_KINDS) {
    const given = args[arg];
    const keys = !given ? [] : typeof given === 'string' ? [given] : Array.isArray(given) ? given.map(String) : null;
    if (keys === null) return base(args, false, 'An exception occurred in this state: TypeError');
    for (const key of keys) {
      const value = pillarGet(ctx, key);
      if (value === undefined || value === null) {
        failed.set(key, null);
        ret.result = false;
      } else if (!test(value)) {
        failed.set(key, kind);
        ret.result = false;
      } else if (args.verbose === true) fine.set(key, kind);
    }
  }
  for (const [key, kind] of failed) ret.comment += `Pillar key "${key}" ${kind === null ? 'is missing.' : `is not ${kind}.`}\n`;
  if (args.verbose === true && fine.size) {
    ret.comment += 'Those keys passed the check:\n';
    for (const [key, kind] of fine) ret.comment += `- ${key} (${kind ?? 'None'})\n`;
  }
  return ret;
}

/** Salt's `test` states: fixed outcomes for exercising the state system. */
export function testModule(): StateModule {
  return {
    name: 'test',
    available: () => ({ available: true }),
    functions: {
      succeed_without_changes: {
        args: commentArg,
        extraArgs: true,
        run: (args) => resource(args, base(args, true, str(args.comment, 'Success!'))),
      },
      nop: {
        args: {},
        extraArgs: true,
        run: (args) => resource(args, base(args, true, str(args.comment, 'Success!'))),
      },
      fail_without_changes: {
        args: commentArg,
        extraArgs: true,
        run: (args, ctx) =>
          resource(args, ctx.test ? base(args, false, "If we weren't testing, this would be a failure!") : base(args, false, str(args.comment, 'Failure!'))),
      },
      succeed_with_changes: {
        args: commentArg,
        extraArgs: true,
        run: (args, ctx) =>
          resource(
            args,
            ctx.test
              ? base(args, null, "If we weren't testing, this would be successful with changes", structuredClone(CHANGE_DATA))
              : base(args, true, str(args.comment, 'Success!'), structuredClone(CHANGE_DATA)),
          ),
      },
      fail_with_changes: {
        args: commentArg,
        extraArgs: true,
        run: (args, ctx) =>
          resource(
            args,
            ctx.test
              ? base(args, null, "If we weren't testing, this would be failed with changes", structuredClone(CHANGE_DATA))
              : base(args, false, str(args.comment, 'Failure!'), structuredClone(CHANGE_DATA)),
          ),
      },
      configurable_test_state: {
        args: {
          changes: { type: ['boolean', 'string'], default: true },
          result: { type: ['boolean', 'string'], default: true },
          comment: { type: 'string', default: '' },
          warnings: { type: ['string', 'list'] },
        },
        extraArgs: true,
        run: (args, ctx) => resource(args, configurable(args, ctx)),
      },
      check_pillar: {
        args: {
          present: { type: ['string', 'list'] },
          boolean: { type: ['string', 'list'] },
          integer: { type: ['string', 'list'] },
          string: { type: ['string', 'list'] },
          listing: { type: ['string', 'list'] },
          dictionary: { type: ['string', 'list'] },
          verbose: { type: 'boolean', default: false },
        },
        run: (args, ctx) => checkPillar(args, ctx),
      },
      show_notification: {
        args: { text: { type: 'string', required: true } },
        extraArgs: true,
        run: (args) => {
          if (!args.text) return base(args, false, 'An exception occurred in this state: Missing required argument text.');
          return resource(args, base(args, true, String(args.text)));
        },
      },
    },
    async modWatch(args, ctx) {
      const ret: StateReturn = {
        name: String(args.name),
        result: args.result === undefined ? true : (args.result as boolean | null),
        comment: str(args.comment, 'Watch statement fired.'),
        changes:
          args.changes && typeof args.changes === 'object' ? (args.changes as Record<string, unknown>) : { 'Requisites with changes': watchedWithChanges(ctx) },
      };
      return resource(args, ret);
    },
  };
}
