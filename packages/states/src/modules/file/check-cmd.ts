import { randomBytes } from 'node:crypto';
import type { Stats } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import type { StateContext } from '@brine/core';
import { shlexSplit } from '@brine/exec';
import { enforceMeta, lstatOrUndefined, type MetaWant } from '../../util/fs-meta.js';
import { chmod, chown, rename, rm, writeFile } from '../../util/sync-fs.js';

/**
 * file.managed's own `check_cmd` (Salt's file.mod_run_check_cmd): the new contents are written
 * to a temp file with the owner and mode the target will have, the command runs with that file's
 * path as its last argument, and only a command that exits 0 lets the file in. The target is
 * never touched before the check passes, so a rejected /etc/sudoers never reaches the disk.
 */

export interface CheckSpec {
  cmd: string;
  /** Salt's tmp_dir: where the checked temp file lives (default: beside the target, so the install is a rename). */
  dir?: string;
  /** Salt's tmp_ext: the temp file's suffix, for checkers that go by the extension. */
  ext?: string;
}

/** The check the arguments ask for, or undefined (Salt checks only a non-empty check_cmd). */
export function checkSpec(args: Record<string, unknown>): CheckSpec | undefined {
  if (typeof args.check_cmd !== 'string' || args.check_cmd.trim() === '') return undefined;
  const dir = typeof args.tmp_dir === 'string' && args.tmp_dir !== '' ? args.tmp_dir : undefined;
  const ext = typeof args.tmp_ext === 'string' ? args.tmp_ext : undefined;
  return { cmd: args.check_cmd, dir, ext };
}

interface Staged {
  path: string;
  /** The owner and mode changes the file has against the target's old stats, as Salt words them. */
  meta: Record<string, string>;
}

/**
 * Writes `body` to a temp file in `dir` with the target's old owner and mode (a new file: the
 * default mode), then the wanted ones; a leading dot keeps it out of the `*.conf` style globs of
 * daemons reading the directory while it exists.
 */
async function stage(dir: string, name: string, ext: string, body: Buffer, old: Stats | undefined, defaultMode: number, want: MetaWant): Promise<Staged> {
  const path = join(dir, `.${basename(name)}.brine-check-${randomBytes(6).toString('hex')}${ext}`);
  try {
    await writeFile(path, body, { mode: 0o600, flag: 'wx' });
    await chmod(path, old ? old.mode & 0o7777 : defaultMode);
    if (old && process.getuid?.() === 0) await chown(path, old.uid, old.gid);
    const meta = await enforceMeta(path, old ?? (await lstatOrUndefined(path))!, want);
    return { path, meta };
  } catch (e) {
    await rm(path, { force: true });
    throw e;
  }
}

/** Salt's failure: the command's stdout and stderr under "check_cmd execution failed"; changes empty, watchers not fired. */
function failure(out: { stdout: string; stderr: string }): { comment: string } {
  let comment = 'check_cmd execution failed';
  if (out.stdout) comment += `\n${out.stdout}`;
  if (out.stderr) comment += `\n${out.stderr}`;
  return { comment };
}

export type CheckedInstall = { installed: true; meta: Record<string, string> } | { installed: false; comment: string };

/**
 * Stages `body` for `name`, runs the check on it and, when it passes, renames it over the target
 * (staged a second time beside the target first when the check ran elsewhere, so the install
 * stays one rename). The command is split as Salt's python_shell=False does, with no shell.
 */
export async function installChecked(
  ctx: StateContext,
  spec: CheckSpec,
  name: string,
  body: Buffer,
  old: Stats | undefined,
  defaultMode: number,
  want: MetaWant,
  makeParent: () => Promise<boolean>,
): Promise<CheckedInstall> {
  const targetDir = dirname(name);
  // A parent that makedirs would create is made only once the check has passed.
  const checkDir = spec.dir ?? ((await lstatOrUndefined(targetDir)) ? targetDir : tmpdir());
  const checked = await stage(checkDir, name, spec.ext ?? '', body, old, defaultMode, want);
  let cleanup = [checked.path];
  try {
    const out = await ctx.cmd.run([...shlexSplit(spec.cmd), checked.path]);
    if (out.retcode !== 0) return { installed: false, ...failure(out) };
    let install = checked;
    if (checkDir !== targetDir) {
      if (!(await makeParent())) return { installed: false, comment: 'Parent directory not present' };
      install = await stage(targetDir, name, '', body, old, defaultMode, want);
      cleanup = [...cleanup, install.path];
    }
    await rename(install.path, name);
    return { installed: true, meta: install.meta };
  } finally {
    for (const p of cleanup) await rm(p, { force: true });
  }
}
