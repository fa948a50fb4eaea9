import { mkdir, readdir, rm, stat } from '../../util/sync-fs.js';
import { dirname, join } from 'node:path';
import type { ArgSpec, StateContext, StateReturn } from '@brine/core';
import { asBool, asList } from '../../util/args.js';
import { enforceMeta, lstatOrUndefined, metaChanges, normaliseMode, resolveOwnership } from '../../util/fs-meta.js';
import { describe, failed, notAbsolute, pathState, start } from './common.js';

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

/** Entries under `dir` that `clean` would remove (everything not kept), deepest last. */
async function cleanList(dir: string, keep: Set<string>): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    const kept = [...keep].some((k) => k === p || k.startsWith(`${p}/`));
    if (!kept) out.push(p);
    else if (entry.isDirectory()) out.push(...(await cleanList(p, keep)));
  }
  return out;
}

/** Paths other file states in this run manage under the directory (Salt keeps required ones). */
function keptPaths(ctx: StateContext, name: string): Set<string> {
  const keep = new Set<string>();
  for (const c of ctx.lowstate) if (c.state === 'file' && c.name.startsWith(`${name}/`)) keep.add(c.name);
  return keep;
}

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
  const own = await resolveOwnership(args.user, args.group, ctx.cmd);
  if (own.error) return failed(ret, own.error);
  let st = await lstatOrUndefined(name);
  if (st?.isSymbolicLink()) {
    if (args.allow_symlink === false) return failed(ret, `Specified location ${name} exists and is a symlink`);
    st = await stat(name).catch(() => undefined);
  }
  if (st && !st.isDirectory()) return failed(ret, `Specified location ${name} exists and is a file`);
  ret.old_state = st ? await describe(name, st, ctx.cmd) : null;
  const clean = asBool(args.clean) && st ? await cleanList(name, keptPaths(ctx, name)) : [];
  const want = { ...own, user: args.user, group: args.group, mode };

  if (ctx.test) {
    const changes: Record<string, Record<string, string>> = {};
    if (!st) changes[name] = { directory: 'new' };
    else {
      const meta = metaChanges(st, want);
      if (Object.keys(meta).length) changes[name] = meta;
    }
    for (const p of clean) changes[p] = { removed: 'Removed due to clean' };
    ret.changes = changes;
    if (Object.keys(changes).length) {
      ret.result = null;
      ret.comment =
        'The following files will be changed:\n' +
        Object.entries(changes)
          .map(([p, ch]) =>
            Object.entries(ch)
              .map(([k, v]) => `${p}: ${k} - ${v}\n`)
              .join(''),
          )
          .join('');
    } else {
      ret.comment = `The directory ${name} is in the correct state`;
      ret.new_state = ret.old_state;
    }
    return ret;
  }

  const changes: Record<string, unknown> = {};
  let created = false;
  if (!st) {
    const parent = await lstatOrUndefined(dirname(name));
    if (!parent && !asBool(args.makedirs)) return failed(ret, `No directory to create ${name} in`);
    await mkdir(name, { recursive: true });
    changes[name] = { directory: 'new' };
    created = true;
    st = await lstatOrUndefined(name);
  }
  Object.assign(changes, await enforceMeta(name, st!, want));
  if (clean.length) {
    for (const p of clean) await rm(p, { recursive: true, force: true });
    changes.removed = asList(clean);
  }
  ret.changes = changes;
  if (created) ret.comment = '';
  else ret.comment = Object.keys(changes).length ? `Directory ${name} updated` : `Directory ${name} is in the correct state`;
  ret.new_state = await pathState(name, ctx.cmd);
  return ret;
}
