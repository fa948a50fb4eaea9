/**
 * Host calls across rounds: compile with the answers known so far, collect the calls the
 * templates made that have no answer, ask the host for all of them at once, compile again.
 * Each compile is the pure pipeline; asking is the one injected effect. A call is asked once
 * (answers are kept across rounds); the rounds are bounded, so templates whose every answer
 * leads to yet another call end with a coded error instead of running on.
 */
import type { Diagnostic } from '@brine/core';
import { askable, describeHostCall, type HostAnswer, type HostAnswers, type HostCall, type HostCallRecord } from '@brine/jinja';
import { compilerErrors } from './errors.js';

export { hostCallKey, type HostAnswer, type HostAnswers, type HostCall, type HostCallRecord } from '@brine/jinja';

/** Asks the host: one answer per call, in the order of the calls. */
export type AskHost = (calls: HostCall[]) => Promise<HostAnswer[]>;

/** Rounds of asking before BRINE_ERR_COMPILE_HOST_ROUNDS. */
export const HOST_CALL_ROUNDS = 4;

export interface AskingOptions {
  /** Where the calls go; without it a call without an answer fails the compile (BRINE_ERR_COMPILE_HOST_CALL). */
  ask?: AskHost;
  /** Answers known before the first round (the job's cache); the answers asked are added to it. */
  answers?: Map<string, HostAnswer>;
  rounds?: number;
  /** The minion asked, for messages. */
  minion?: string;
}

/** What a compile step gives that compileAsking needs: its diagnostics and host calls. */
export interface HostRounds {
  diagnostics: Diagnostic[];
  failed?: boolean;
  hostCalls: HostCallRecord[];
}

export interface Asked<T> {
  result: T;
  /** Every answer known at the end (the seed, and those asked). */
  answers: Map<string, HostAnswer>;
  /** The calls asked of the host, in rounds. */
  asked: HostCall[][];
}

function callOf(c: HostCallRecord): HostCall {
  return { fun: c.fun, args: c.args, kwargs: c.kwargs };
}

/** The result with the diagnostics of its unanswered calls replaced by `diag(call)`. */
function withCallErrors<T extends HostRounds>(result: T, missing: HostCallRecord[], diag: (c: HostCallRecord) => Diagnostic): T {
  const rest = result.diagnostics.filter((d) => d.code !== 'BRINE_ERR_COMPILE_HOST_CALL');
  return { ...result, diagnostics: [...missing.map(diag), ...rest], ...('failed' in result ? { failed: true } : {}) };
}

function where(c: HostCallRecord) {
  return { file: c.file, line: c.line, column: c.column, env: c.env };
}

/** Validates the host's answers: one per call, each `{ok, value}` or `{ok: false, code, message}`. */
function checkAnswers(got: unknown, count: number): string | undefined {
  if (!Array.isArray(got)) return 'the answer is not a list';
  if (got.length !== count) return `${got.length} answers for ${count} calls`;
  const bad = got.findIndex((a) => {
    if (a === null || typeof a !== 'object') return true;
    const o = a as Record<string, unknown>;
    return o.ok === true ? !('value' in o) : o.ok !== false || typeof o.code !== 'string' || typeof o.message !== 'string';
  });
  return bad < 0 ? undefined : `answer ${bad} is not {ok, value} or {ok: false, code, message}`;
}

/** Runs `compile` until its templates make no call without an answer (see the file comment). */
export async function compileAsking<T extends HostRounds>(compile: (answers: HostAnswers) => T | Promise<T>, opts: AskingOptions = {}): Promise<Asked<T>> {
  const answers = opts.answers ?? new Map<string, HostAnswer>();
  const asked: HostCall[][] = [];
  const rounds = opts.rounds ?? HOST_CALL_ROUNDS;
  for (;;) {
    const result = await compile(answers);
    const missing = result.hostCalls.filter((c) => askable(c) && !answers.has(c.key));
    if (missing.length === 0 || !opts.ask) return { result, answers, asked };
    if (asked.length >= rounds) {
      const res = withCallErrors(result, missing, (c) => compilerErrors.diag('BRINE_ERR_COMPILE_HOST_ROUNDS', { call: describeHostCall(c), rounds }, where(c)));
      return { result: res, answers, asked };
    }
    const calls = missing.map(callOf);
    asked.push(calls);
    let reason: string | undefined;
    let got: unknown;
    try {
      got = await opts.ask(calls);
      reason = checkAnswers(got, calls.length);
    } catch (e) {
      reason = (e as Error).message;
    }
    if (reason !== undefined) {
      const minion = opts.minion ?? '';
      const res = withCallErrors(result, missing, (c) =>
        compilerErrors.diag('BRINE_ERR_COMPILE_HOST_UNANSWERED', { call: describeHostCall(c), minion, reason }, where(c)),
      );
      return { result: res, answers, asked };
    }
    missing.forEach((c, i) => answers.set(c.key, (got as HostAnswer[])[i]!));
  }
}

/** The answers a compile used: its calls with their answers, for deciding whether another host answers alike. */
export function answersUsed(hostCalls: HostCallRecord[], answers: HostAnswers): Array<[HostCall, HostAnswer]> {
  const out: Array<[HostCall, HostAnswer]> = [];
  for (const c of hostCalls) {
    const a = answers.get(c.key);
    if (a) out.push([callOf(c), a]);
  }
  return out;
}
