import { readFile, stat } from '../../util/sync-fs.js';
import { dirname } from 'node:path';
import { chmodSync, readFileSync, type Stats } from 'node:fs';
import type { ArgSpec, StateContext, StateReturn } from '@brine/core';
import { asBool } from '../../util/args.js';
import { fileDiff } from '../../util/diff.js';
import { enforceMeta, lstatOrUndefined, lstatOrUndefinedSync, metaChanges, modeOf, normaliseMode, resolveOwnership } from '../../util/fs-meta.js';
import { renderFileTemplate } from '../../util/template.js';
import { installChecked, checkSpec } from './check-cmd.js';
import { atomicWrite, createExclusive, defaultFileMode, describe, describeLocal, failed, isText, notAbsolute, pathState, start } from './common.js';
import { finalFileMode, initialFileMode, makeParent } from './new-file.js';
import { sourceBytes } from './managed-source.js';
import { keptAsIs } from './kept-as-is.js';
import { remoteAlreadyThere, remoteMismatch } from './remote-source.js';

export const managedArgs: Record<string, ArgSpec> = {
  source: { type: ['string', 'list'] },
  source_hash: { type: 'string' },
  source_hash_name: { type: 'string' },
  contents: { type: ['string', 'list', 'number', 'boolean'] },
  contents_newline: { type: 'boolean' },
  template: { type: 'string' },
  defaults: { type: 'dict' },
  context: { type: 'dict' },
  user: { type: ['string', 'number'] },
  group: { type: ['string', 'number'] },
  mode: { type: ['string', 'number'] },
  makedirs: { type: 'boolean' },
  dir_mode: { type: ['string', 'number'] },
  replace: { type: 'boolean' },
  show_changes: { type: 'boolean' },
  create: { type: 'boolean' },
  follow_symlinks: { type: 'boolean' },
  backup: { type: 'string' },
  skip_verify: { type: 'boolean' },
  saltenv: { type: 'string' },
  encoding: { type: 'string' },
  check_cmd: { type: 'string' },
  tmp_dir: { type: 'string' },
  tmp_ext: { type: 'string' },
};

/**
 * Salt's file.managed parameters: its other keyword arguments (none of these, nor `env`) reach
 * a template as variables.
 */
const SALT_MANAGED_PARAMS = new Set(
  (
    'name source source_hash source_hash_name keep_source user group mode attrs template makedirs dir_mode context replace defaults backup ' +
    'show_changes create contents tmp_dir tmp_ext contents_pillar contents_grains contents_newline contents_delimiter encoding encoding_errors ' +
    'allow_empty follow_symlinks check_cmd skip_verify selinux win_owner win_perms win_deny_perms win_inheritance win_perms_reset verify_ssl ' +
    'use_etag signature source_hash_sig signed_by_any signed_by_all keyring gnupghome env'
  ).split(' '),
);

/** The state's keyword arguments that are not file.managed's own: template variables in Salt. */
function extraKwargs(args: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(args).filter(([k]) => !SALT_MANAGED_PARAMS.has(k) && !(k in managedArgs)));
}

/** A file template's source, name, user, group, mode and attrs as Salt hands them over. */
async function renderManagedTemplate(text: string, src: string, saltenv: string, args: Record<string, unknown>, ctx: StateContext): Promise<string> {
  return renderFileTemplate(ctx, {
    engine: String(args.template),
    text,
    source: src,
    saltenv,
    vars: {
      source: src,
      name: args.name,
      user: args.user ?? null,
      group: args.group ?? null,
      mode: normaliseMode(args.mode) ?? null,
      attrs: args.attrs ?? null,
      ...extraKwargs(args),
    },
    defaults: args.defaults,
    context: args.context,
  });
}

const PARENT_MISSING = 'Parent directory not present';

const TEST_COMMENT = (name: string) => `The file ${name} is set to be changed\nNote: No changes made, actual changes may\nbe different due to other states.`;

/** `contents` as written to the file: a list's items one a line, a newline at the end unless told otherwise. */
function contentsText(args: Record<string, unknown>): string {
  const text = Array.isArray(args.contents) ? args.contents.map(String).join('\n') : String(args.contents);
  return args.contents_newline !== false && !text.endsWith('\n') ? text + '\n' : text;
}

/** Where the new contents come from: `contents`, or the first `source` found. */
async function desiredBytes(args: Record<string, unknown>, ctx: StateContext): Promise<Buffer | undefined | { error: string }> {
  const saltenv = typeof args.saltenv === 'string' ? args.saltenv : (ctx.low.__env__ ?? 'base');
  let body: Buffer | undefined;
  if (args.contents !== undefined && args.contents !== null) {
    if (args.source) return { error: "'source' cannot be used in combination with 'contents', 'contents_pillar', or 'contents_grains'" };
    let text = contentsText(args);
    // Salt's apply_template_on_contents: the contents are the template, with defaults and context only
    if (typeof args.template === 'string' && args.template) {
      text = await renderFileTemplate(ctx, {
        engine: args.template,
        text,
        source: 'contents',
        saltenv,
        vars: {},
        defaults: args.defaults,
        context: args.context,
      });
    }
    body = Buffer.from(text);
  } else if (args.source) {
    const got = await sourceBytes(Array.isArray(args.source) ? args.source.map(String) : [String(args.source)], args, saltenv, ctx);
    if ('error' in got) return got;
    body = got.body;
    if (typeof args.template === 'string' && args.template)
      body = Buffer.from(await renderManagedTemplate(body.toString('utf8'), got.source, saltenv, args, ctx));
  } else {
    return undefined;
  }
  return body;
}

/** file.managed: the file has these contents, this owner and this mode. */
export function managed(args: Record<string, unknown>, ctx: StateContext): StateReturn | Promise<StateReturn> {
  const fast = newFromContents(args, ctx);
  if (fast === TRIED) return managedAwaited(args, ctx, true);
  return fast ?? managedAwaited(args, ctx, false);
}

/** The new file's O_EXCL create was tried and did not make it: the awaited way takes it from there. */
const TRIED = Symbol('tried');

const given = (v: unknown) => v !== undefined && v !== null && v !== '';

/**
 * The commonest change of a large apply, a new file from `contents`, made and described without
 * a promise: the runtime then makes none for the state. The steps and the result are the awaited
 * way's. Undefined (nothing done) when the state needs more: an owner to look up (NSS may
 * answer), a source, a template, test mode, check_cmd, an existing file to keep.
 */
function newFromContents(args: Record<string, unknown>, ctx: StateContext): StateReturn | Promise<StateReturn> | typeof TRIED | undefined {
  if (args.contents === undefined || args.contents === null || args.source || args.template) return undefined;
  if (given(args.user) || given(args.group) || args.replace === false || args.create === false || checkSpec(args)) return undefined;
  const name = String(args.name);
  if (notAbsolute(name)) return undefined;
  let mode: string | undefined;
  try {
    mode = normaliseMode(args.mode);
  } catch {
    return undefined;
  }
  const want = Buffer.from(contentsText(args));
  if (remoteMismatch(want, name, false)) return undefined;
  if (ctx.test) return predictedAtOnce(name, want, mode);
  const umaskMode = defaultFileMode();
  let st: Stats | undefined;
  try {
    st = createExclusive(name, want, initialFileMode(args, mode, umaskMode));
  } catch {
    return TRIED;
  }
  if (!st) return unchangedAtOnce(name, want, mode) ?? TRIED;
  const ret = start(name);
  ret.old_state = null;
  const meta = metaChanges(st, { mode: finalFileMode(mode, umaskMode) });
  if (meta.mode !== undefined) chmodSync(name, parseInt(meta.mode, 8));
  const changes: Record<string, unknown> = { diff: 'New file', ...meta };
  // as the awaited way: the stat taken at the write, unless the mode was set after it
  const after = Object.keys(meta).length === 0 ? st : lstatOrUndefinedSync(name);
  if (!after) return finish(ret, changes, false, null);
  const now = describeLocal(name, after, want);
  if (now) return finish(ret, changes, false, now);
  return describe(name, after, ctx.cmd, want).then((d) => finish(ret, changes, false, d));
}

/** Test mode's answer for a missing file or one in place, without a promise (else undefined). */
function predictedAtOnce(name: string, want: Buffer, mode: string | undefined): StateReturn | undefined {
  if (lstatOrUndefinedSync(name)) return unchangedAtOnce(name, want, mode, true);
  const ret = start(name);
  ret.old_state = null;
  return predicted(ret, name, undefined, undefined, { mode });
}

/**
 * The commonest result of an apply run again: a regular file (not a symlink) that has the bytes
 * and, when given, the mode already. Salt's "is in the correct state", without a promise; else
 * undefined.
 */
function unchangedAtOnce(name: string, want: Buffer, mode: string | undefined, test = false): StateReturn | undefined {
  const st = lstatOrUndefinedSync(name);
  if (!st?.isFile() || (mode !== undefined && modeOf(st) !== mode)) return undefined;
  let old: Buffer;
  try {
    old = readFileSync(name);
  } catch {
    return undefined;
  }
  if (!old.equals(want)) return undefined;
  const now = describeLocal(name, st, old);
  if (!now) return undefined;
  const ret = start(name);
  ret.old_state = now;
  return test ? predicted(ret, name, st, undefined, { mode }) : finish(ret, {}, false, now);
}

async function managedAwaited(args: Record<string, unknown>, ctx: StateContext, tried: boolean): Promise<StateReturn> {
  const name = String(args.name);
  const ret = start(name);
  const bad = notAbsolute(name);
  if (bad) return failed(ret, bad);
  let mode: string | undefined;
  try {
    mode = normaliseMode(args.mode);
  } catch (e) {
    return failed(ret, (e as Error).message);
  }
  const own = await resolveOwnership(args.user, args.group, ctx.cmd, ctx.test);
  if (own.error) return failed(ret, own.error);
  if (args.replace === false || (await remoteAlreadyThere(args, name))) {
    const kept = await keptAsIs(ret, name, { ...own, user: args.user, group: args.group, mode }, ctx.test);
    if (kept) return kept;
  }
  let want: Buffer | undefined;
  try {
    const d = await desiredBytes(args, ctx);
    if (d && 'error' in d) return failed(ret, d.error);
    want = d;
  } catch (e) {
    return failed(ret, `Unable to manage file: ${(e as Error).message}`);
  }
  const umaskMode = defaultFileMode(); // read once: each read is two umask(2) calls
  const initial = initialFileMode(args, mode, umaskMode);
  const made = tried ? undefined : madeAtOnce(args, ctx, name, want, initial);
  const found = made ? { st: made, followed: false } : await currentStat(name, args.follow_symlinks !== false);
  let st = found.st;
  const followed = found.followed;
  if (st?.isDirectory()) return failed(ret, `Specified target ${name} is a directory`);
  const exists = st !== undefined && !made;
  if (!exists && args.create === false) {
    ret.comment = `File ${name} is not present and is not set for creation`;
    return ret;
  }
  const old = exists ? await readFile(name) : undefined;
  ret.old_state = exists && st ? await describe(name, st, ctx.cmd, old) : null;
  const replace = args.replace !== false;
  const contentChange = want !== undefined && old !== undefined && replace && !old.equals(want);
  const showChanges = asBool(args.show_changes, true);
  const diffOf = (o: Buffer, n: Buffer) =>
    !showChanges ? '<show_changes=False>' : isText(o) && isText(n) ? fileDiff(o.toString('utf8'), n.toString('utf8')) : 'Replace binary file';

  if (ctx.test) {
    const diff = contentChange && old && want ? diffOf(old, want) : undefined;
    return predicted(ret, name, exists ? st : undefined, diff, { ...own, user: args.user, group: args.group, mode });
  }

  const mismatch = remoteMismatch(want, name, exists);
  if (mismatch) return failed(ret, mismatch);
  const makedirs = asBool(args.makedirs);
  const check = checkSpec(args);
  // Without check_cmd a new file's missing parent shows when the file is created (one lstat less).
  if (!exists && !makedirs && check && !(await lstatOrUndefined(dirname(name)))) return failed(ret, PARENT_MISSING);
  // A new file ends with the given mode, else the umask's, and starts from Salt's temp file mode.
  const wanted = { ...own, user: args.user, group: args.group, mode: exists ? mode : finalFileMode(mode, umaskMode) };
  const mkParent = () => makeParent(name, args.dir_mode, mode, own);
  if (check && (!exists || contentChange || Object.keys(metaChanges(st!, wanted)).length > 0)) {
    const body = exists ? (contentChange ? want! : old!) : (want ?? Buffer.alloc(0));
    const done = await installChecked(ctx, check, name, body, exists ? st : undefined, initial, wanted, mkParent);
    if (!done.installed) return { ...ret, result: false, comment: done.comment, changes: {}, skip_watch: true, new_state: ret.old_state };
    const changes: Record<string, unknown> = {};
    if (!exists) changes[want === undefined ? 'new' : 'diff'] = want === undefined ? `file ${name} created` : 'New file';
    else if (contentChange) changes.diff = diffOf(old!, want!);
    return finish(ret, Object.assign(changes, done.meta), !exists && want === undefined, await pathState(name, ctx.cmd, body));
  }
  // without makedirs the parent was found above; with it, the missing ones are made now
  if (!exists && makedirs && !made) await mkParent();
  const changes: Record<string, unknown> = {};
  let body: Buffer | undefined = old;
  if (!exists) {
    const fresh = want ?? Buffer.alloc(0);
    body = fresh;
    const created = made ?? (await createNew(name, fresh, initial, makedirs));
    if (created === PARENT_MISSING) return failed(ret, PARENT_MISSING);
    // Neither contents nor source: Salt touches the file and says so in its own words.
    if (want === undefined) changes.new = `file ${name} created`;
    else changes.diff = 'New file';
    st = created;
  } else if (contentChange && old && want) {
    body = want;
    await atomicWrite(name, want, st, umaskMode);
    changes.diff = diffOf(old, want);
  }
  const meta = await enforceMeta(name, st!, wanted);
  Object.assign(changes, meta);
  const changed = Object.keys(changes).length > 0;
  // Unchanged, the path reads as before (unless old_state described a symlink's target); a new
  // file whose owner and mode needed nothing more reads as its stat just after the write.
  const written = !exists && Object.keys(meta).length === 0 ? st : undefined;
  const newState = !changed && !followed ? ret.old_state : await stateAfter(name, written, ctx, body);
  return finish(ret, changes, !exists && want === undefined, newState);
}

/**
 * Writes a new file in place and returns its stat, or PARENT_MISSING (not checked beforehand
 * when makedirs is off). A path that appeared since the lstat is replaced atomically, as before.
 */
async function createNew(name: string, body: Buffer, mode: number, makedirs: boolean): Promise<Stats | typeof PARENT_MISSING | undefined> {
  try {
    const made = createExclusive(name, body, mode);
    if (made) return made;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT' || makedirs || (await lstatOrUndefined(dirname(name)))) throw e;
    return PARENT_MISSING;
  }
  await atomicWrite(name, body, undefined, mode);
  return lstatOrUndefined(name);
}

/**
 * A new file made at once when nothing needs knowing first: O_EXCL says the path was free, so no
 * lstat before it. Anything there, a missing parent or any error takes the way that looks first
 * (undefined), which meets the same.
 */
function madeAtOnce(args: Record<string, unknown>, ctx: StateContext, name: string, want: Buffer | undefined, mode: number): Stats | undefined {
  if (want === undefined || ctx.test || args.create === false || checkSpec(args) || remoteMismatch(want, name, false)) return undefined;
  try {
    return createExclusive(name, want, mode);
  } catch {
    return undefined;
  }
}

/** The path's lstat, or its target's stat when it is a symlink to follow (and the target is there). */
async function currentStat(name: string, follow: boolean): Promise<{ st: Stats | undefined; followed: boolean }> {
  const st = await lstatOrUndefined(name);
  if (!st?.isSymbolicLink() || !follow) return { st, followed: false };
  const target = await stat(name).catch(() => undefined);
  return target ? { st: target, followed: true } : { st, followed: false };
}

/** The path as it reads after the run: from the stat taken just after writing it, when that is still true. */
async function stateAfter(name: string, written: Stats | undefined, ctx: StateContext, body: Buffer | undefined): Promise<unknown> {
  return written ? describe(name, written, ctx.cmd, body) : pathState(name, ctx.cmd, body);
}

/** Test mode's result: the diff and the owner and mode changes a real run would make. */
function predicted(ret: StateReturn, name: string, st: Stats | undefined, diff: string | undefined, wanted: Parameters<typeof metaChanges>[1]): StateReturn {
  if (!st) {
    ret.changes = { newfile: name };
    ret.result = null;
    ret.comment = TEST_COMMENT(name);
    return ret;
  }
  const changes: Record<string, unknown> = {};
  if (diff !== undefined) changes.diff = diff;
  Object.assign(changes, metaChanges(st, wanted));
  ret.changes = changes;
  if (Object.keys(changes).length) {
    ret.result = null;
    ret.comment = TEST_COMMENT(name);
  } else {
    ret.comment = `The file ${name} is in the correct state`;
    ret.new_state = ret.old_state;
  }
  return ret;
}

/** The real run's result: Salt's comment for what changed. */
function finish(ret: StateReturn, changes: Record<string, unknown>, touched: boolean, newState: unknown): StateReturn {
  ret.changes = changes;
  const changed = Object.keys(changes).length > 0;
  ret.comment = touched ? 'Empty file' : changed ? `File ${ret.name} updated` : `File ${ret.name} is in the correct state`;
  ret.new_state = newState;
  return ret;
}
