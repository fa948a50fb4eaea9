import type { ExecCaller, StateContext, StateModule, StateReturn } from '@brine/core';
import { isDict } from '@brine/core';

/** Keys of the chunk that are not function calls (Salt's ignored_kwargs). */
const IGNORED = new Set(['name', '__reqs__', 'sfun']);

/** Python's repr() of JSON-like data, as Salt's comments print values. */
export function pyRepr(v: unknown): string {
  if (v === null || v === undefined) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (typeof v === 'number') return String(v);
  if (typeof v === 'string') return v.includes("'") && !v.includes('"') ? `"${v}"` : `'${v.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  if (Array.isArray(v)) return `[${v.map(pyRepr).join(', ')}]`;
  return `{${Object.entries(v as Record<string, unknown>)
    .map(([k, x]) => `${pyRepr(k)}: ${pyRepr(x)}`)
    .join(', ')}}`;
}

/** Python's str(): text as is, everything else as repr. */
function pyStr(v: unknown): string {
  return typeof v === 'string' ? v : pyRepr(v);
}

/** Salt's _get_result: a boolean is the result; a dict fails on result: False or a non-zero retcode anywhere in it. */
function getResult(v: unknown): boolean {
  if (typeof v === 'boolean') return v;
  if (!isDict(v)) return true;
  for (const [k, x] of Object.entries(v)) {
    if ((k === 'result' && x === false) || (k === 'retcode' && x !== 0)) return false;
    if (isDict(x) && !getResult(x)) return false;
  }
  return true;
}

function noExec(name: unknown): StateReturn {
  return { name: String(name), changes: {}, result: false, comment: 'Execution functions are not available where this state runs' };
}

/** What Salt shows of a failed call: for bad arguments, Python's TypeError text alone. */
function errText(err: unknown): string {
  const e = err as { code?: string; details?: { detail?: unknown } };
  if (e?.code === 'BRINE_ERR_EXEC_BAD_ARGS' && typeof e.details?.detail === 'string') return e.details.detail;
  return err instanceof Error ? err.message : String(err);
}

/** module.run's new syntax: each `mod.fun:` key with a list of positionals and one-key dicts (keywords). */
async function runNew(args: Record<string, unknown>, ctx: StateContext, exec: ExecCaller): Promise<StateReturn> {
  const funcs = Object.keys(args).filter((k) => !IGNORED.has(k) && k.includes('.'));
  const ret: StateReturn = { name: String(args.name), changes: {}, comment: '', result: null };
  if (funcs.length === 0) return { ...ret, result: false, comment: 'No function provided.' };
  const missing: string[] = [];
  const tests: string[] = [];
  for (const f of funcs) {
    const fun = f.split(':')[0]!;
    if (!exec.spec(fun)) missing.push(fun);
    else if (ctx.test) tests.push(fun);
  }
  if (missing.length || tests.length) {
    // Salt's wording, its plural marks included ("FunctionTrue a, b to be executed.")
    const parts = [
      missing.length ? `Unavailable function${missing.length > 1 ? 'True' : ''}: ${missing.join(', ')}.` : '',
      tests.length ? `Function${tests.length > 1 ? 'True' : ''} ${tests.join(', ')} to be executed.` : '',
    ];
    ret.comment = parts.join(' ').trim();
    if (missing.length) ret.result = false;
    return ret;
  }
  const failures: string[] = [];
  const success: string[] = [];
  for (const f of funcs) {
    const fun = f.split(':')[0]!;
    const given = args[f];
    const list = given === null || given === undefined ? [] : Array.isArray(given) ? given : [given];
    const pos: unknown[] = [];
    const kw: Record<string, unknown> = {};
    for (const item of list) {
      if (isDict(item)) Object.assign(kw, item);
      else pos.push(item);
    }
    let value: unknown;
    try {
      value = (await exec.call(fun, pos, kw)).return;
    } catch (err) {
      failures.push(`'${f}' failed: ${errText(err)}`);
      continue;
    }
    if (!getResult(value)) {
      if (isDict(value)) failures.push(`'${f}' failed: ${pyStr(value.comment ?? '(error message N/A)')}`);
      if (value === false) failures.push(`'${f}': False`);
    } else {
      success.push(`${f}: ${isDict(value) ? pyStr(value.comment ?? 'Success') : pyStr(value)}`);
      ret.changes[f] = value;
    }
  }
  ret.comment = [...failures, ...success].join(', ');
  ret.result = failures.length === 0;
  return ret;
}

/** Salt's m_ names for arguments the state system itself uses. */
const M_NAMES: Record<string, string> = { name: 'm_name', fun: 'm_fun', names: 'm_names', state: 'm_state', saltenv: 'm_saltenv' };

/** module.run's legacy syntax: `name: mod.fun` and the function's arguments as the state's own. */
async function runLegacy(args: Record<string, unknown>, ctx: StateContext, exec: ExecCaller): Promise<StateReturn> {
  const name = String(args.name);
  const ret: StateReturn = { name, changes: {}, comment: '', result: null };
  const spec = exec.spec(name);
  if (!spec) return { ...ret, result: false, comment: `Module function ${name} is not available` };
  if (ctx.test) return { ...ret, comment: `Module function ${name} is set to execute` };
  const given = { ...args };
  delete given.name;
  const pos: unknown[] = [];
  const missing: string[] = [];
  for (const p of spec.params) {
    const key = M_NAMES[p.name] ?? p.name;
    if (key in given) pos.push(given[key]);
    else if (p.name in given) pos.push(given[p.name]);
    else if (!p.required) pos.push(p.default ?? null);
    else missing.push(key);
  }
  if (missing.length) return { ...ret, result: false, comment: `The following arguments are missing: ${missing.join(' ')}` };
  if (spec.varArgs && 'args' in given) {
    if (!Array.isArray(given.args)) return { ...ret, result: false, comment: "'args' must be a list." };
    pos.push(...(given.args as unknown[]));
  }
  let kw: Record<string, unknown> = {};
  if (spec.extraKwargs && 'kwargs' in given) {
    if (!isDict(given.kwargs)) return { ...ret, result: false, comment: "'kwargs' must be a dict." };
    kw = given.kwargs;
  }
  let value: unknown;
  try {
    value = (await exec.call(name, pos, kw)).return;
  } catch (err) {
    return { ...ret, result: false, comment: `Module function ${name} threw an exception. Exception: ${errText(err)}` };
  }
  ret.changes.ret = value;
  ret.comment = `Module function ${name} executed`;
  ret.result = getResult(value);
  return ret;
}

/** Salt picks the syntax from the keys: any key without a dot (or no keys at all) means legacy. */
function isLegacy(args: Record<string, unknown>): boolean {
  const keys = Object.keys(args).filter((k) => !IGNORED.has(k));
  return keys.some((k) => !k.includes('.')) || keys.length === 0;
}

async function run(args: Record<string, unknown>, ctx: StateContext): Promise<StateReturn> {
  if (!ctx.exec) return noExec(args.name);
  return isLegacy(args) ? runLegacy(args, ctx, ctx.exec) : runNew(args, ctx, ctx.exec);
}

/** Salt's module states: run an execution function (module.run), or only when watched (module.wait). */
export function moduleModule(): StateModule {
  return {
    name: 'module',
    available: () => ({ available: true }),
    functions: {
      run: { args: {}, extraArgs: true, run },
      wait: { args: {}, extraArgs: true, run: async (a) => ({ name: String(a.name), changes: {}, result: true, comment: '' }) },
      watch: { args: {}, extraArgs: true, run: async (a) => ({ name: String(a.name), changes: {}, result: true, comment: '' }) },
    },
    modWatch: run,
  };
}
