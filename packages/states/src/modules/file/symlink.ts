import { lchown, readlink, rm, symlink as mkSymlink, mkdir } from '../../util/sync-fs.js';
import { dirname } from 'node:path';
import type { ArgSpec, StateContext, StateReturn } from '@brine/core';
import { asBool } from '../../util/args.js';
import { lstatOrUndefined, ownerNames, resolveOwnership } from '../../util/fs-meta.js';
import { failed, notAbsolute, start } from './common.js';

export const symlinkArgs: Record<string, ArgSpec> = {
  target: { type: 'string', required: true },
  force: { type: 'boolean' },
  makedirs: { type: 'boolean' },
  user: { type: ['string', 'number'] },
  group: { type: ['string', 'number'] },
  mode: { type: ['string', 'number'] },
  backupname: { type: 'string' },
};

/** file.symlink: a symlink at `name` points to `target`. */
export async function symlink(args: Record<string, unknown>, ctx: StateContext): Promise<StateReturn> {
  const name = String(args.name);
  const target = String(args.target);
  const ret = start(name);
  const bad = notAbsolute(name);
  if (bad) return failed(ret, bad);
  const own = await resolveOwnership(args.user, args.group, ctx.cmd, ctx.test);
  if (own.error) return failed(ret, own.error);
  const parent = dirname(name);
  const parentSt = await lstatOrUndefined(parent);
  const st = await lstatOrUndefined(name);
  const current = st?.isSymbolicLink() ? await readlink(name) : undefined;
  ret.old_state = st ? { name, target: current ?? null } : null;
  ret.new_state = { name, target };
  const ownedBy = async () => {
    const now = await lstatOrUndefined(name);
    const o = now ? await ownerNames(now, ctx.cmd) : { user: '', group: '' };
    return `Symlink ${name} is present and owned by ${o.user}:${o.group}`;
  };
  const force = asBool(args.force);

  if (ctx.test) {
    if (!st) {
      ret.result = null;
      ret.changes = { new: name };
      ret.comment = `Symlink ${name} to ${target} is set for creation`;
      if (!parentSt) ret.comment += `\nDirectory ${parent} for symlink is not present`;
    } else if (current === target) {
      ret.comment = await ownedBy();
    } else if (current !== undefined) {
      ret.result = null;
      ret.changes = { change: name };
      ret.comment = `Link ${name} target is set to be changed to ${target}`;
    } else if (force) {
      ret.result = null;
      ret.changes = { forced: 'Symlink was forcibly replaced' };
      ret.comment = `The file or directory ${name} is set for removal to make way for a new symlink targeting ${target}`;
    } else {
      return failed(ret, `File exists where the symlink ${name} should be`);
    }
    return ret;
  }

  if (!parentSt) {
    if (!asBool(args.makedirs)) return failed(ret, `Directory ${parent} for symlink is not present`);
    await mkdir(parent, { recursive: true });
  }
  const setOwner = async () => {
    if (own.uid !== undefined || own.gid !== undefined) await lchown(name, own.uid ?? -1, own.gid ?? -1);
  };
  if (current === target) {
    await setOwner();
    ret.comment = await ownedBy();
    return ret;
  }
  if (current !== undefined) {
    await rm(name, { force: true });
    await mkSymlink(target, name);
    await setOwner();
    ret.changes = { change: name };
    ret.comment = `Set symlink ${name} -> ${target}`;
    return ret;
  }
  if (st) {
    if (!force) return failed(ret, `File exists where the symlink ${name} should be`);
    await rm(name, { recursive: true, force: true });
    ret.changes.forced = 'Symlink was forcibly replaced';
  }
  await mkSymlink(target, name);
  await setOwner();
  ret.changes.new = name;
  ret.comment = `Created new symlink ${name} -> ${target}`;
  return ret;
}
