import { copyFileSync } from 'node:fs';
import { readFile } from '../../util/sync-fs.js';
import type { ArgSpec, StateContext, StateReturn } from '@brine/core';
import { replaceText } from '@brine/exec';
import { asBool } from '../../util/args.js';
import { fileDiff } from '../../util/diff.js';
import { lstatOrUndefined } from '../../util/fs-meta.js';
import { atomicWrite, defaultFileMode, describe, failed, notAbsolute, pathState, start } from './common.js';

export const replaceArgs: Record<string, ArgSpec> = {
  pattern: { type: 'string', required: true },
  repl: { type: ['string', 'number'], required: true },
  count: { type: 'number' },
  flags: { type: ['list', 'number', 'string'] },
  bufsize: { type: ['number', 'string'] },
  append_if_not_found: { type: 'boolean' },
  prepend_if_not_found: { type: 'boolean' },
  not_found_content: { type: 'string' },
  backup: { type: ['string', 'boolean'] },
  show_changes: { type: 'boolean' },
  ignore_if_missing: { type: 'boolean' },
  backslash_literal: { type: 'boolean' },
};

/** file.replace: every match of a regex in the file replaced. */
export async function replace(args: Record<string, unknown>, ctx: StateContext): Promise<StateReturn> {
  const name = String(args.name);
  const ret = start(name);
  const bad = notAbsolute(name);
  if (bad) return failed(ret, bad);
  const st = await lstatOrUndefined(name);
  if (!st) {
    if (asBool(args.ignore_if_missing)) {
      ret.comment = 'No changes needed to be made';
      return ret;
    }
    return failed(ret, `${name}: file not found`);
  }
  if (!st.isFile()) return failed(ret, `${name} is not a file`);
  const count = typeof args.count === 'number' ? args.count : 0;
  const raw = await readFile(name);
  const before = raw.toString('utf8');
  let after: string;
  try {
    after = replaceText(before, String(args.pattern), String(args.repl), {
      flags: args.flags,
      count,
      backslashLiteral: asBool(args.backslash_literal),
      appendIfNotFound: asBool(args.append_if_not_found),
      prependIfNotFound: asBool(args.prepend_if_not_found),
      notFoundContent: typeof args.not_found_content === 'string' ? args.not_found_content : undefined,
    });
  } catch (e) {
    return failed(ret, `Invalid regular expression: ${(e as Error).message}`);
  }
  ret.old_state = await describe(name, st, ctx.cmd, raw);
  if (after === before) {
    ret.comment = 'No changes needed to be made';
    ret.new_state = ret.old_state;
    return ret;
  }
  const diff = args.show_changes === false ? '<show_changes=False>' : fileDiff(before, after);
  ret.changes = { diff };
  if (ctx.test) {
    ret.result = null;
    ret.comment = 'Changes would have been made';
    return ret;
  }
  const written = Buffer.from(after);
  // Salt keeps the file as it was beside it unless `backup` is False or empty
  const backup = args.backup ?? '.bak';
  if (backup !== false && backup !== '') copyFileSync(name, `${name}${String(backup)}`);
  await atomicWrite(name, written, st, defaultFileMode());
  ret.comment = 'Changes were made';
  ret.new_state = await pathState(name, ctx.cmd, written);
  return ret;
}
