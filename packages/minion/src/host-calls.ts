import { toBrineError } from '@brine/core';
import type { HostCallAnswer, HostCallItem } from '@brine/protocol';

/** Runs one execution function for a template's host call and gives its value. */
export type RunHostCall = (call: HostCallItem) => Promise<unknown>;

/**
 * The answers to the master's `host_calls`: each call run in order (a template's calls may
 * depend on the host's state in that order), its value, or the coded error it raised. A value
 * goes over JSON: `undefined` becomes None.
 */
export async function answerHostCalls(calls: HostCallItem[], run: RunHostCall): Promise<HostCallAnswer[]> {
  const answers: HostCallAnswer[] = [];
  for (const c of calls) {
    try {
      const value = await run(c);
      answers.push({ ok: true, value: value === undefined ? null : value });
    } catch (err) {
      const e = toBrineError(err);
      answers.push({ ok: false, code: e.code, message: e.message });
    }
  }
  return answers;
}
