import type { JobCall, JobOutcome } from './jobs.js';

/**
 * Salt's judgement of one minion's state run (`state.check_result`): a dict of state results
 * none of which failed. A list (the render errors of a compile) or an empty dict fails.
 */
export function stateRunSucceeded(ret: unknown): boolean {
  if (ret === null || typeof ret !== 'object' || Array.isArray(ret)) return false;
  const entries = Object.values(ret as Record<string, unknown>);
  if (entries.length === 0) return false;
  for (const r of entries) {
    if (r === null || typeof r !== 'object' || Array.isArray(r)) continue;
    const res = (r as Record<string, unknown>).result;
    if (res === false) return false;
    if (res === undefined && !stateRunSucceeded(r)) return false;
  }
  return true;
}

/** Whether any state of a minion's run has changes. */
export function stateRunChanged(ret: unknown): boolean {
  if (ret === null || typeof ret !== 'object' || Array.isArray(ret)) return false;
  for (const r of Object.values(ret as Record<string, unknown>)) {
    if (r === null || typeof r !== 'object' || Array.isArray(r)) continue;
    const ch = (r as Record<string, unknown>).changes;
    if (ch !== null && typeof ch === 'object' && Object.keys(ch).length > 0) return true;
  }
  return false;
}

/**
 * Every targeted minion in order, with what it returned; a minion that did not return answers
 * `false`, as Salt records a failed minion (Brine counts it failed whether or not
 * `expect_minions` is set: a step is not a success on minions nobody heard from). A list target
 * expects every id it names, known or not, as Salt's does.
 */
export function eachMinion(
  outcome: JobOutcome,
  call: Pick<JobCall, 'tgt' | 'tgt_type'>,
): Array<{ minion: string; ret: unknown; retcode: number; returned: boolean }> {
  const out = Object.keys(outcome.returns).map((m) => ({ minion: m, ret: outcome.returns[m]!.ret, retcode: outcome.returns[m]!.retcode, returned: true }));
  const missing = new Set(outcome.missing);
  if (call.tgt_type === 'list') {
    const named = Array.isArray(call.tgt) ? call.tgt : call.tgt.split(',');
    for (const id of named.map((s) => s.trim()).filter(Boolean)) if (!(id in outcome.returns)) missing.add(id);
  }
  for (const m of missing) out.push({ minion: m, ret: false, retcode: 1, returned: false });
  return out.sort((a, b) => (a.minion < b.minion ? -1 : a.minion > b.minion ? 1 : 0));
}

/** `fail_minions` as Salt takes it: a list, or a comma-separated string; anything else is ignored with a warning. */
export function failMinions(v: unknown, warnings: string[]): Set<string> {
  if (v === undefined || v === null) return new Set();
  if (typeof v === 'string')
    return new Set(
      v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    );
  if (Array.isArray(v)) return new Set(v.map(String));
  warnings.push("'fail_minions' needs to be a list or a comma separated string. Ignored.");
  return new Set();
}
