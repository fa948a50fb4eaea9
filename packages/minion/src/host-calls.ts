import { toBrineError } from '@brine/core';
import { checkJsonBounds, MAX_DATA_DEPTH, type HostCallAnswer, type HostCallItem } from '@brine/protocol';
import { minionErrors } from './errors.js';

/** Runs one execution function for a template's host call and gives its value. */
export type RunHostCall = (call: HostCallItem) => Promise<unknown>;

/** Room left in a frame for what surrounds the answers (envelope, ref). */
const FRAME_OVERHEAD = 1024;

/**
 * The answers to the master's `host_calls`: each call run in order (a template's calls may
 * depend on the host's state in that order), its value, or the coded error it raised. A value
 * goes over JSON: `undefined` becomes None. The answers share one frame of at most `maxBytes`:
 * an answer that does not fit is an error naming the call, never a cut value.
 */
export async function answerHostCalls(calls: HostCallItem[], run: RunHostCall, maxBytes = Infinity): Promise<HostCallAnswer[]> {
  const answers: HostCallAnswer[] = [];
  let room = maxBytes - FRAME_OVERHEAD;
  for (const c of calls) {
    let answer: HostCallAnswer;
    try {
      const value = await run(c);
      const deep = checkJsonBounds(value, 'value', MAX_DATA_DEPTH);
      if (deep?.kind === 'depth') throw minionErrors.make('BRINE_ERR_MINION_HOST_ANSWER_TOO_DEEP', { fun: c.fun, limit: deep.limit, at: deep.at });
      answer = { ok: true, value: value === undefined ? null : value };
    } catch (err) {
      const e = toBrineError(err);
      answer = { ok: false, code: e.code, message: e.message };
    }
    let size = Buffer.byteLength(JSON.stringify(answer) ?? 'null') + 1;
    if (size > room) {
      const e = minionErrors.make('BRINE_ERR_MINION_HOST_ANSWER_TOO_LARGE', { fun: c.fun, size, limit: Math.max(0, room) });
      answer = { ok: false, code: e.code, message: e.message };
      size = Buffer.byteLength(JSON.stringify(answer)) + 1;
    }
    room -= size;
    answers.push(answer);
  }
  return answers;
}
