import {
  bindStateArgs,
  failedReturn as fail,
  moduleAvailability,
  normaliseReturn as normalise,
  type Availability,
  type CommandRunner,
  type ExecCaller,
  type LowChunk,
  type StateContext,
  type StateModule,
  type StateRegistry,
  type StateReturn,
} from '@brine/core';
import { checkCommand, hasPreconditions, preconditions, pyResult, retryPolicy, type RetryPolicy } from './global-checks.js';
import { refuseUnsupported } from './unsupported-args.js';

/**
 * One call of a state function for a chunk, through the registry: the function (or the module's
 * mod_watch) is looked up, its module asked whether it works here, its arguments validated;
 * `onlyif`/`unless`/`creates` before, `check_cmd` after, `retry` around. Never throws: whatever
 * goes wrong is that state's failure, with the reason in the comment.
 */

export interface CallEnv {
  registry: StateRegistry;
  /** Builds the context for the (possibly rewritten) chunk. */
  context(low: LowChunk, test: boolean): StateContext;
  sleep(ms: number): Promise<void>;
  /** Runs the conditions (`onlyif`, `unless`, `check_cmd`). */
  cmd: CommandRunner;
  /** The host's execution functions, for `fun:` conditions. */
  exec?: ExecCaller;
  availability: Map<StateModule, Promise<Availability>>;
  /** The answers of `availability` once they have come. */
  available: Map<StateModule, Availability>;
}

/** A value or the promise of one: a state function with nothing to wait for makes no promise. */
export type Maybe<T> = T | Promise<T>;

export function isThenable<T>(v: Maybe<T> | PromiseLike<T>): v is Promise<T> {
  return v !== null && typeof v === 'object' && typeof (v as PromiseLike<T>).then === 'function';
}

const thrown = (chunk: LowChunk, err: unknown) => fail(chunk, `An exception occurred in this state: ${err instanceof Error ? err.message : String(err)}`);

/**
 * normaliseReturn, without its copy when the answer has Salt's shape already: the runtime never
 * writes to it, and records a copy of its own.
 */
function normalised(chunk: LowChunk, answer: unknown, full: string): StateReturn {
  const r = answer as StateReturn | null;
  const plain =
    r !== null &&
    typeof r === 'object' &&
    !Array.isArray(r) &&
    typeof r.name === 'string' &&
    (r.result === true || r.result === false || r.result === null) &&
    r.changes !== null &&
    typeof r.changes === 'object' &&
    typeof r.comment === 'string';
  return plain ? r : normalise(chunk, answer, full);
}

/** A function's answer that came as a promise: awaited, normalised, a rejection its failure. */
async function settle(chunk: LowChunk, answer: PromiseLike<StateReturn>, full: string): Promise<StateReturn> {
  try {
    return normalised(chunk, await answer, full);
  } catch (err) {
    return thrown(chunk, err);
  }
}

/**
 * Calls the chunk's function, or its module's mod_watch when `modWatch` (chunk.sfun names the
 * function). Synchronous when the module's availability is known and the function returns
 * without a promise: a run of such states makes no promise per state.
 */
function callOnce(env: CallEnv, chunk: LowChunk, test: boolean, modWatch: boolean): Maybe<StateReturn> {
  const module = env.registry.module(chunk.state);
  const known = module && env.available.get(module);
  if (!module || known) return callKnown(env, chunk, test, modWatch, module, known);
  // the module's first state: its answer is asked once, then known
  return moduleAvailability(module, env.availability).then(
    (avail) => {
      env.available.set(module, avail);
      return callKnown(env, chunk, test, modWatch, module, avail);
    },
    (err: unknown) => thrown(chunk, err),
  );
}

const stateNotFound = (chunk: LowChunk, full: string) => `State '${full}' was not found in SLS '${chunk.__sls__}'`;

/**
 * Salt's words, newline included, for a module or function it does not have (the compile has
 * already warned about it with file and line).
 */
const unknownComment = (chunk: LowChunk, full: string) => `${stateNotFound(chunk, full)}\nReason: '${full}' is not available.\n`;

function callKnown(
  env: CallEnv,
  chunk: LowChunk,
  test: boolean,
  modWatch: boolean,
  module: StateModule | undefined,
  avail: Availability | undefined,
): Maybe<StateReturn> {
  const fun = modWatch ? String(chunk.sfun ?? chunk.fun) : chunk.fun;
  const full = `${chunk.state}.${modWatch ? 'mod_watch' : fun}`;
  try {
    if (!module || !avail) return fail(chunk, unknownComment(chunk, full));
    if (!avail.available) {
      return fail(chunk, `${stateNotFound(chunk, full)}\nReason: '${chunk.state}' is not available on this host: ${avail.reason ?? 'no reason given'}`);
    }
    const found = env.registry.lookup(chunk.state, fun);
    let answer: Maybe<StateReturn>;
    if (modWatch) {
      if (!module.modWatch) return fail(chunk, `${stateNotFound(chunk, full)}\nReason: '${chunk.state}' has no mod_watch`);
      let args: Record<string, unknown> = { name: chunk.name };
      if (found) {
        // mod_watch sees what the chunk says, not the function's defaults (Salt passes the kwargs).
        const bound = bindStateArgs(`${chunk.state}.${fun}`, found.fn, chunk, false);
        if ('error' in bound) return fail(chunk, bound.error);
        args = bound.args;
      }
      args.sfun = fun;
      answer = module.modWatch(args, env.context(chunk, test));
    } else {
      if (!found) return fail(chunk, unknownComment(chunk, full));
      const bound = bindStateArgs(full, found.fn, chunk);
      if ('error' in bound) return fail(chunk, bound.error);
      answer = found.fn.run(bound.args, env.context(chunk, test));
    }
    return isThenable(answer) ? settle(chunk, answer, full) : normalised(chunk, answer, full);
  } catch (err) {
    return thrown(chunk, err);
  }
}

/**
 * One attempt: conditions, the call, check_cmd. Salt 3007 runs a chunk's check_cmd after every
 * call (test mode, failures and skips included) and lets its verdict replace the result, except
 * for a function that takes check_cmd itself (file.managed checks its temp file before installing).
 */
function attempt(env: CallEnv, chunk: LowChunk, test: boolean, modWatch: boolean): Maybe<StateReturn> {
  if (!hasPreconditions(chunk) && (chunk.check_cmd === undefined || chunk.check_cmd === null)) return callOnce(env, chunk, test, modWatch);
  return checkedAttempt(env, chunk, test, modWatch);
}

async function checkedAttempt(env: CallEnv, chunk: LowChunk, test: boolean, modWatch: boolean): Promise<StateReturn> {
  let ret: StateReturn | undefined;
  try {
    if (hasPreconditions(chunk)) ret = await preconditions(chunk, env.cmd, env.exec);
  } catch (err) {
    return fail(chunk, `Could not check the conditions of this state: ${err instanceof Error ? err.message : String(err)}`);
  }
  ret ??= await callOnce(env, chunk, test, modWatch);
  const ownCheck = () => !modWatch && env.registry.lookup(chunk.state, chunk.fun)?.fn.args.check_cmd !== undefined;
  if (chunk.check_cmd !== undefined && chunk.check_cmd !== null && !ownCheck()) {
    try {
      ret = await checkCommand(chunk, ret, env.cmd);
    } catch (err) {
      ret = fail(chunk, `check_cmd could not run: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  return ret;
}

/** The chunk's call with `retry` applied. Test mode tries once and says what it would do. */
export function callChunk(env: CallEnv, chunk: LowChunk, test: boolean, modWatch = false): Maybe<StateReturn> {
  const refused = refuseUnsupported(chunk);
  if (refused) return refused;
  const policy = retryPolicy(chunk.retry);
  if (!policy) return attempt(env, chunk, test, modWatch);
  return retried(env, chunk, test, modWatch, policy);
}

async function retried(env: CallEnv, chunk: LowChunk, test: boolean, modWatch: boolean, policy: RetryPolicy): Promise<StateReturn> {
  let ret = await attempt(env, chunk, test, modWatch);
  if (test) {
    const u = pyResult(policy.until);
    const note =
      `The state would be retried every ${policy.interval} seconds (with a splay of up to ${policy.splay} seconds) ` +
      `a maximum of ${policy.attempts} times or until a result of ${u} is returned`;
    return { ...ret, comment: `${ret.comment ? String(ret.comment) : ''}  ${note}` };
  }
  const lines: string[] = [];
  for (let n = 1; n < policy.attempts && ret.result !== policy.until; n++) {
    lines.push(`Attempt ${n}: Returned a result of "${pyResult(ret.result)}", with the following comment: "${ret.comment}"`);
    const wait = policy.interval + (policy.splay > 0 ? Math.floor(Math.random() * (policy.splay + 1)) : 0);
    if (wait > 0) await env.sleep(wait * 1000);
    ret = await attempt(env, chunk, test, modWatch);
  }
  if (lines.length === 0) return ret;
  return { ...ret, comment: [...lines, ret.comment ? String(ret.comment) : ''].join('\n') };
}
