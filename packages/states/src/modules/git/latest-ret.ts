import type { StateReturn } from '@brine/core';

/** git.latest's return, and the verdicts it ends in (Salt's comments, word for word). */

export interface Ret extends StateReturn {
  changes: Record<string, unknown>;
}

export const short = (sha: string | null | undefined): string | null => (sha ? sha.slice(0, 7) : null);
export const joinComments = (c: string[]): string => c.join('. ') + (c.length > 1 ? '.' : '');

export function fail(ret: Ret, msg: string, comments: string[] = []): Ret {
  ret.result = false;
  ret.comment = comments.length ? `${msg}\n\nChanges already made: ${joinComments(comments)}` : msg;
  return ret;
}

export function upToDate(ret: Ret, target: string, test: boolean, comments: string[] = [], localChanges = false): Ret {
  ret.comment = `Repository ${target} is up-to-date`;
  if (localChanges) ret.comment += ", but with uncommitted changes. Set 'force_reset' to True to purge uncommitted changes.";
  if (comments.length) ret.comment += `\n\nChanges ${test ? 'that would be ' : ''}made: ${joinComments(comments)}`;
  return ret;
}

export function neutral(ret: Ret, comment: string): Ret {
  ret.result = null;
  ret.comment = comment;
  return ret;
}
