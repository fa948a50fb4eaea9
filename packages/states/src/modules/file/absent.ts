import { rm } from '../../util/sync-fs.js';
import type { StateContext, StateReturn } from '@brine/core';
import { lstatOrUndefined } from '../../util/fs-meta.js';
import { describe, failed, notAbsolute, start } from './common.js';

/** file.absent: nothing exists at the path. */
export async function absent(args: Record<string, unknown>, ctx: StateContext): Promise<StateReturn> {
  const name = String(args.name);
  const ret = start(name);
  const bad = notAbsolute(name);
  if (bad) return failed(ret, bad);
  if (name.replace(/\/+$/, '') === '') return failed(ret, 'Refusing to make "/" absent');
  const st = await lstatOrUndefined(name);
  ret.new_state = null;
  if (!st) {
    ret.old_state = null;
    ret.comment = `File ${name} is not present`;
    return ret;
  }
  ret.old_state = await describe(name, st, ctx.cmd);
  const kind = st.isDirectory() ? 'Directory' : 'File';
  ret.changes = { removed: name };
  if (ctx.test) {
    ret.result = null;
    ret.comment = `${kind} ${name} is set for removal`;
    return ret;
  }
  await rm(name, { recursive: true, force: true });
  ret.comment = st.isDirectory() ? `Removed directory ${name}` : `Removed file ${name}`;
  return ret;
}
