import { stat } from '../../util/sync-fs.js';
import { dirname } from 'node:path';
import type { ArgSpec, StateContext, StateReturn } from '@brine/core';
import { asBool } from '../../util/args.js';
import { enforceMeta, lstatOrUndefined, metaChanges, normaliseMode, resolveOwnership } from '../../util/fs-meta.js';
import { describe, failed, notAbsolute, pathState, start } from './common.js';
import { cleanDir, keepFiles, predictClean } from './dir-clean.js';
import { makeDirs } from './new-file.js';

export const directoryArgs: Record<string, ArgSpec> = {
  user: { type: ['string', 'number'] },
  group: { type: ['string', 'number'] },
  mode: { type: ['string', 'number'] },
  dir_mode: { type: ['string', 'number'] },
  makedirs: { type: 'boolean' },
  clean: { type: 'boolean' },
  exclude_pat: { type: ['string', 'list'] },
  file_mode: { type: ['string', 'number'] },
  allow_symlink: { type: 'boolean' },
  force: { type: 'boolean' },
  recurse: { type: 'list' },
};

/** file.directory: the directory exists with this owner and mode. */
export async function directory(args: Record<string, unknown>, ctx: StateContext): Promise<StateReturn> {
  const name = String(args.name).replace(/(.)\/+$/, '$1');
  const ret = start(name);
  const bad = notAbsolute(name);
  if (bad) return failed(ret, bad);
  let mode: string | undefined;
  try {
    mode = normaliseMode(args.dir_mode ?? args.mode);
  } catch (e) {
    return failed(ret, (e as Error).message);
  }
  const own = await resolveOwnership(args.user, args.group, ctx.cmd, ctx.test);
  if (own.error) return failed(ret, own.error);
  let st = await lstatOrUndefined(name);
  if (st?.isSymbolicLink()) {
    if (args.allow_symlink === false) return failed(ret, `Specified location ${name} exists and is a symlink`);
    st = await stat(name).catch(() => undefined);
  }
  if (st && !st.isDirectory()) return failed(ret, `Specified location ${name} exists and is a file`);
  ret.old_state = st ? await describe(name, st, ctx.cmd) : null;
  const clean = asBool(args.clean);
  const keep = clean && st ? keepFiles(name, ctx) : undefined;
  const excludePat = typeof args.exclude_pat === 'string' || Array.isArray(args.exclude_pat) ? (args.exclude_pat as string | string[]) : undefined;
  const want = { ...own, user: args.user, group: args.group, mode };

  // What Salt's _check_directory predicts; the real run reports it as well.
  const predicted: Record<string, Record<string, string>> = {};
  if (st) {
    const meta = metaChanges(st, want);
    if (Object.keys(meta).length) predicted[name] = meta;
    for (const p of keep ? predictClean(name, keep, excludePat) : []) predicted[p] = { removed: 'Removed due to clean' };
  } else predicted[name] = { directory: 'new' };
  if (!Object.keys(predicted).length) {
    ret.comment = `The directory ${name} is in the correct state`;
    ret.new_state = ret.old_state;
    return ret;
  }
  if (ctx.test) {
    ret.changes = predicted;
    ret.result = null;
    ret.comment =
      'The following files will be changed:\n' +
      Object.entries(predicted)
        .map(([p, ch]) =>
          Object.entries(ch)
            .map(([k, v]) => `${p}: ${k} - ${v}\n`)
            .join(''),
        )
        .join('');
    return ret;
  }

  if (!st) {
    const parent = await lstatOrUndefined(dirname(name));
    if (!parent && !asBool(args.makedirs)) return failed(ret, `No directory to create ${name} in`);
    // Salt makes it (and the missing parents) with the mode in one go: only {directory: new}.
    await makeDirs(name, { mode, uid: own.uid, gid: own.gid });
    ret.changes = predicted;
    ret.new_state = await pathState(name, ctx.cmd);
    return ret;
  }
  const changes: Record<string, unknown> = { ...predicted, ...(await enforceMeta(name, st, want)) };
  const removed = keep ? cleanDir(name, keep, excludePat) : [];
  if (removed.length) changes.removed = removed;
  ret.changes = changes;
  ret.comment = removed.length ? `Files cleaned from directory ${name}` : `Directory ${name} updated`;
  ret.new_state = await pathState(name, ctx.cmd);
  return ret;
}
