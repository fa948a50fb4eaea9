import { createHash } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { lchown, lstat, mkdir, mkdtemp, readdir, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, isAbsolute, join, relative } from 'node:path';
import type { ArgSpec, StateContext, StateFunction, StateReturn } from '@brine/core';
import { asBool } from '../../util/args.js';
import { getGroup, getUser } from '../../util/accounts.js';
import { ArchiveError, guessFormat, listArchive, type ArchiveContents } from './listing.js';

/** Salt's archive.extracted for tar and zip archives (GNU tar and Info-ZIP unzip do the work). */

const HASH_LENGTHS: Record<number, string> = { 32: 'md5', 40: 'sha1', 56: 'sha224', 64: 'sha256', 96: 'sha384', 128: 'sha512' };

/** `sha256=HEX` or a bare hex digest: [algorithm, digest], or undefined. */
export function parseSourceHash(spec: string): [string, string] | undefined {
  const [algo, hex] = spec.includes('=') ? (spec.split('=', 2) as [string, string]) : [undefined, spec];
  const h = hex.trim().toLowerCase();
  if (!/^[0-9a-f]+$/.test(h)) return undefined;
  const a = algo?.toLowerCase() ?? HASH_LENGTHS[h.length];
  return a ? [a, h] : undefined;
}

/**
 * A source_hash that is a file (salt://, http(s), file:// or a path) rather than a digest: the hash
 * on the line naming the source's file, or the file's only hash (as Salt's file.get_source_sum).
 */
async function hashFromFile(spec: string, source: string, ctx: StateContext, saltenv: string): Promise<string | undefined> {
  let text: string | undefined;
  if (spec.startsWith('salt://')) text = (await ctx.files.get(spec, saltenv))?.toString('utf8');
  else if (/^https?:\/\//.test(spec)) {
    const res = await fetch(spec);
    text = res.ok ? await res.text() : undefined;
  } else text = await readFile(spec.replace(/^file:\/\//, ''), 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  const file = basename(source.replace(/[?#].*$/, ''));
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  for (const line of lines) {
    const m = /^(?:(\w+)=)?([0-9a-fA-F]{32,128})\s+\*?(.+)$/.exec(line);
    if (m && basename(m[3]!.trim()) === file) return m[1] ? `${m[1]}=${m[2]}` : m[2];
  }
  const bare = lines.map((l) => /^(?:(\w+)=)?([0-9a-fA-F]{32,128})$/.exec(l)).filter(Boolean);
  return bare.length === 1 ? bare[0]![0] : undefined;
}

/** Where the source's bytes are on this host; remote ones are fetched into a temp file. */
interface Source {
  path: string;
  local: boolean;
  cleanup(): Promise<void>;
}

async function fetchSource(src: string, ctx: StateContext, saltenv: string): Promise<Source | string> {
  let body: Buffer | undefined;
  if (src.startsWith('salt://')) {
    body = await ctx.files.get(src, saltenv);
    if (!body) return `Source file ${src} not found in saltenv '${saltenv}'`;
  } else {
    const res = await fetch(src);
    if (!res.ok) return `Unable to fetch ${src}: HTTP ${res.status}`;
    body = Buffer.from(await res.arrayBuffer());
  }
  const dir = await mkdtemp(join(tmpdir(), 'brine-archive-'));
  const path = join(dir, basename(new URL(src.replace(/^salt:\/\//, 'salt://x/')).pathname) || 'archive');
  await writeFile(path, body, { mode: 0o600 });
  return { path, local: false, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

async function digest(path: string, algo: string): Promise<string> {
  return createHash(algo)
    .update(await readFile(path))
    .digest('hex');
}

/** Salt's tar invocation for `options`: `tar xv<short opts> <long opts> -f FILE` in the destination. */
function tarCommand(options: string, file: string): string[] {
  const words = options.match(/(?:[^\s"']+|"[^"]*"|'[^']*')+/g)?.map((w) => w.replace(/^["']|["']$/g, '')) ?? [];
  const opts = words.filter((w) => !['v', '-v', '--verbose'].includes(w));
  let short = 'xv';
  const long: string[] = [];
  opts.forEach((o, i) => {
    if (o.startsWith('-') || i > 0) long.push(o);
    else short += o.replace(/x/g, '').replace(/f/g, '');
  });
  return ['tar', short, ...long, '-f', file];
}

/** Chowns everything under `path` (or just it) whose owner differs; whether anything would/did change. */
async function enforceOwner(path: string, uid: number, gid: number, recurse: boolean, test: boolean): Promise<boolean> {
  let changed = false;
  const visit = async (p: string): Promise<void> => {
    const st = await lstat(p);
    if ((uid !== -1 && st.uid !== uid) || (gid !== -1 && st.gid !== gid)) {
      changed = true;
      if (!test) await lchown(p, uid === -1 ? st.uid : uid, gid === -1 ? st.gid : gid);
    }
    if (recurse && st.isDirectory()) for (const e of await readdir(p)) await visit(join(p, e));
  };
  await visit(path);
  return changed;
}

async function extracted(a: Record<string, unknown>, ctx: StateContext): Promise<StateReturn> {
  const ret: StateReturn = { name: String(a.name), result: false, changes: {}, comment: '' };
  const done = (comment: string, result: boolean | null = false) => Object.assign(ret, { comment, result });
  if (asBool(a.skip_files_list_verify) && asBool(a.skip_verify)) return done('Only one of "skip_files_list_verify" and "skip_verify" can be set to True');
  let name = String(a.name);
  if (!isAbsolute(name)) return done(`${name} is not an absolute path`);
  name = name.replace(/\/+$/, '');
  if (existsSync(name) && statSync(name).isFile()) return done(`${name} exists and is not a directory`);
  name += '/';
  const ifMissing = typeof a.if_missing === 'string' ? a.if_missing : undefined;
  if (ifMissing !== undefined && !isAbsolute(ifMissing)) return done("Value for 'if_missing' is not an absolute path");
  const ownOn = typeof a.enforce_ownership_on === 'string' ? a.enforce_ownership_on : undefined;
  if (ownOn !== undefined) {
    if (!isAbsolute(ownOn)) return done("Value for 'enforce_ownership_on' is not an absolute path");
    if (relative(name, ownOn).startsWith('../')) return done(`Value for 'enforce_ownership_on' must be within ${name}`);
  }
  if (ifMissing !== undefined && existsSync(ifMissing)) return done(`Path ${ifMissing} exists`, true);
  let uid = -1;
  let gid = -1;
  const user = a.user === undefined || a.user === null ? undefined : String(a.user);
  const group = a.group === undefined || a.group === null ? undefined : String(a.group);
  if (user) {
    const u = await getUser(user, ctx.cmd);
    if (!u) return done(`User ${user} does not exist`);
    uid = u.uid;
  }
  if (group) {
    const g = await getGroup(group, ctx.cmd);
    if (!g) return done(`Group ${group} does not exist`);
    gid = g.gid;
  }
  const saltenv = typeof a.saltenv === 'string' ? a.saltenv : (ctx.low.__env__ ?? 'base');
  if (asBool(a.source_hash_update)) return done("Brine's archive.extracted does not support 'source_hash_update': it keeps no cache of earlier sources");
  const source = String(a.source);
  const local = source.startsWith('file://') || isAbsolute(source);
  let sourceHash = a.source_hash === undefined || a.source_hash === null ? undefined : String(a.source_hash);
  if (sourceHash && (/^(salt|https?|file):\/\//.test(sourceHash) || isAbsolute(sourceHash))) {
    const found = await hashFromFile(sourceHash, source, ctx, saltenv);
    if (!found) return done(`Source hash file ${sourceHash} contains no hash for ${basename(source)}`);
    sourceHash = found;
  }
  const wanted = sourceHash ? parseSourceHash(sourceHash) : undefined;
  if (sourceHash && !wanted) return done(`Invalid source_hash ${sourceHash}`);
  let localPath = local ? source.replace(/^file:\/\//, '') : '';
  if (local) {
    localPath = await realpath(localPath).catch(() => localPath);
    if (!existsSync(localPath) || !statSync(localPath).isFile()) return done(`Source file '${localPath}' does not exist`);
  } else if (!/^(salt|https?):\/\//.test(source)) {
    return done(`Invalid source "${source}"`);
  }
  const format = typeof a.archive_format === 'string' ? a.archive_format.toLowerCase() : guessFormat(source);
  if (!format) {
    return done(
      "Could not guess archive_format from the value of the 'source' argument. Please set this archive_format to one of the following: tar, rar, zip",
    );
  }
  if (!['tar', 'rar', 'zip'].includes(format)) {
    return done(
      `Invalid archive_format '${format}'. Either set it to a supported value (tar, rar, zip) or remove this argument and the archive format will be guessed based on file extension.`,
    );
  }
  if (format === 'rar') return done('archive.unrar function not available, rar/unrar might not be installed on minion');
  const options = a.options === undefined || a.options === null ? undefined : String(a.options);
  let strip: number | undefined;
  if (options && format === 'tar') {
    const m = /--strip(?:-components)?(?:\s+|=)["']?(\d+)["']?/.exec(options);
    if (m) strip = Number(m[1]);
  }
  if (a.password !== undefined && a.password !== null && format !== 'zip') return done("The 'password' argument is only supported for zip archives");
  if (a.password !== undefined && a.password !== null) return done("Brine's archive.extracted does not extract password-protected zip archives");
  const trim = a.trim_output === true ? 100 : typeof a.trim_output === 'number' ? a.trim_output : false;
  let src: Source;
  if (local) src = { path: localPath, local: true, cleanup: async () => {} };
  else {
    if (ctx.test) return done(`Archive ${source} would be cached (if necessary) and checked to discover if extraction is needed`, null);
    if (/^https?:/.test(source) && !wanted && !asBool(a.skip_verify)) {
      return done(`Unable to verify upstream hash of source file ${source}, please set source_hash or set skip_verify to True`);
    }
    const got = await fetchSource(source, ctx, saltenv);
    if (typeof got === 'string') return done(got);
    src = got;
    if (wanted && !asBool(a.skip_verify)) {
      const actual = await digest(src.path, wanted[0]);
      if (actual !== wanted[1]) {
        await src.cleanup();
        return done(`Specified ${wanted[0]} checksum for ${source} (${wanted[1]}) does not match actual checksum (${actual})`);
      }
    }
  }
  try {
    return await extract(ctx, ret, { a, name, source, src, format, options, strip, trim, wanted, ifMissing, ownOn, uid, gid, user, group });
  } finally {
    await src.cleanup();
  }
}

interface Plan {
  a: Record<string, unknown>;
  name: string;
  source: string;
  src: Source;
  format: string;
  options?: string;
  strip?: number;
  trim: number | false;
  wanted?: [string, string];
  ifMissing?: string;
  ownOn?: string;
  uid: number;
  gid: number;
  user?: string;
  group?: string;
}

async function extract(ctx: StateContext, ret: StateReturn, p: Plan): Promise<StateReturn> {
  const { a, name } = p;
  const done = (comment: string, result: boolean | null = false) => Object.assign(ret, { comment, result });
  let contents: ArchiveContents;
  try {
    const listOptions = typeof a.list_options === 'string' ? a.list_options.split(/\s+/).filter(Boolean) : undefined;
    contents = await listArchive(ctx.cmd, p.src.path, p.format, p.strip, listOptions);
  } catch (e) {
    if (!(e instanceof ArchiveError)) throw e;
    return done(e.message);
  }
  if (asBool(a.enforce_toplevel, true) && (contents.top_level_dirs.length > 1 || contents.top_level_files.length > 0)) {
    return done(
      `Archive does not have a single top-level directory. To allow this archive to be extracted, set 'enforce_toplevel' to False. To avoid a '${p.format}-bomb' it may also be advisable to set a top-level directory by adding it to the 'name' value (for example, setting 'name' to ${join(name, 'some_dir')} instead of ${name}).`,
    );
  }
  const clean = asBool(a.clean);
  const cleanParent = asBool(a.clean_parent);
  if (clean && cleanParent) return done("Only one of 'clean' and 'clean_parent' can be set to True");
  let needed = asBool(a.overwrite);
  const found = await wrongOrMissing(name, contents);
  if (typeof found === 'string') return done(found);
  const { incorrect, missing } = found;
  if (missing) needed = true;
  if (incorrect.length) {
    const paths = `\n\n${incorrect.map((x) => `- ${x}`).join('\n')}`;
    const head = `The below paths (relative to ${name}) exist, but are the incorrect type (file instead of directory, symlink instead of file, etc.).`;
    if (ctx.test && clean)
      return done(`${head} Since the 'clean' option is enabled, the destination paths would be cleared and the archive would be extracted.${paths}`, null);
    if (ctx.test && cleanParent)
      return done(
        `${head} Since the 'clean_parent' option is enabled, the destination parent directory would be removed first and then re-created and the archive would be extracted`,
        null,
      );
    if (!clean) {
      if (!asBool(a.force))
        return done(`${head} To proceed with extraction, set 'force' to True. Note that this will remove these paths before extracting.${paths}`);
      for (const rel of incorrect) {
        const full = join(name, rel);
        // Salt 3007 removes them even under test=True; test mode only reports them.
        if (!ctx.test) await rm(full.replace(/\/+$/, ''), { recursive: true, force: true });
        ((ret.changes.removed ??= []) as string[]).push(full);
        needed = true;
      }
    }
  }
  const why = missing ? ', due to absence of one or more files/dirs' : '';
  let files: string[] | string = [];
  let createdDest = false;
  if (needed) {
    if (p.src.local && p.wanted && !asBool(a.skip_verify)) {
      if ((await digest(p.src.path, p.wanted[0])) !== p.wanted[1]) return done(`${p.source} does not match the desired source_hash ${p.wanted[1]}`);
    }
    if (ctx.test) return done(`Archive ${p.source} would be extracted to ${name}${clean ? ', after cleaning destination path(s)' : ''}${why}`, null);
    if (cleanParent) {
      await rm(name.replace(/\/+$/, ''), { recursive: true, force: true });
      ret.changes.removed ??= `Directory ${name} was removed prior to the extraction`;
    }
    if (clean) {
      for (const rel of [...contents.top_level_dirs, ...contents.top_level_files]) {
        const full = join(name, rel);
        await rm(full.replace(/\/+$/, ''), { recursive: true, force: true });
        ((ret.changes.removed ??= []) as string[]).push(full);
      }
    }
    if (!existsSync(name)) {
      await mkdir(name, { recursive: true });
      if (p.uid !== -1) await lchown(name, p.uid, -1);
      createdDest = true;
    }
    const unpacked = await unpack(ctx, ret, p, contents, createdDest);
    if (!unpacked) return ret;
    files = unpacked;
  }
  const { enforceMissing, enforceFailed } = await enforceOwnership(ctx, ret, p, contents);
  if (needed) {
    if (files.length > 0) {
      if (createdDest) ret.changes.directories_created = [name];
      ret.changes.extracted_files = files;
      // Salt 3007 appends the trim note even when trim_output is off ("trimmed to False")
      ret.comment = `${p.source} extracted to ${name}${why}. Output was trimmed to ${p.trim === false ? 'False' : p.trim} number of lines`;
      ret.result = true;
    } else done(`No files were extracted from ${p.source}`);
  } else {
    ret.result = true;
    ret.comment = 'All files in archive are already present';
    if (ctx.test && ret.changes['updated ownership']) {
      ret.result = null;
      ret.comment += '. Ownership would be updated on one or more files/directories.';
    }
  }
  ownershipTrouble(ret, p, enforceMissing, enforceFailed);
  ret.new_state = { name, source: p.source, files: contents.names };
  return ret;
}

/** The archive's paths that exist at the destination with another type, and whether any is missing. */
async function wrongOrMissing(name: string, contents: ArchiveContents): Promise<{ incorrect: string[]; missing: boolean } | string> {
  let missing = false;
  const incorrect: string[] = [];
  const checks: Array<[string[], (m: import('node:fs').Stats) => boolean]> = [
    [contents.dirs, (s) => s.isDirectory()],
    [contents.files, (s) => !s.isSymbolicLink() && !s.isDirectory()],
    [contents.links, (s) => s.isSymbolicLink()],
  ];
  for (const [list, ok] of checks) {
    for (const rel of list) {
      try {
        if (!ok(await lstat(join(name, rel).replace(/\/+$/, '')))) incorrect.push(rel);
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code === 'ENOENT') {
          missing = true;
        } else if (code !== 'ENOTDIR') return String((e as Error).message);
      }
    }
  }
  return { incorrect, missing };
}

/** Extracts the archive into the destination; the files extracted, or undefined when it failed (`ret` says why). */
async function unpack(ctx: StateContext, ret: StateReturn, p: Plan, contents: ArchiveContents, createdDest: boolean): Promise<string[] | string | undefined> {
  let files: string[] | string;
  const run = async (argv: string[]) => {
    const r = await ctx.cmd.run(argv, { cwd: p.name, env: { LC_ALL: 'C' } });
    if (r.retcode !== 0) {
      ret.result = false;
      ret.changes = { pid: r.pid, retcode: r.retcode, stdout: r.stdout.trimEnd(), stderr: r.stderr.trimEnd() };
    }
    return r;
  };
  if (p.format === 'zip') {
    const r = await run(['unzip', '-o', '-q', ...(p.options ? p.options.split(/\s+/).filter(Boolean) : []), p.src.path, '-d', p.name]);
    if (r.retcode !== 0) return undefined;
    files = contents.names;
  } else if (p.options === undefined) {
    const r = await run(['tar', '-xf', p.src.path, '-C', p.name]);
    if (r.retcode !== 0) {
      if (createdDest) await rm(p.name, { recursive: true, force: true });
      Object.assign(ret, {
        comment:
          "Failed to read from tar archive using Python's native tar file support. If archive is compressed using something other than gzip or bzip2, the 'options' argument may be required to pass the correct options to the tar command in order to extract the archive.",
        result: false,
      });
      return undefined;
    }
    files = contents.names;
  } else {
    const r = await run(tarCommand(p.options, p.src.path));
    if (r.retcode !== 0) return undefined;
    files = r.stdout.split('\n').filter(Boolean);
    if (!files.length) files = 'no tar output so far';
  }
  if (Array.isArray(files) && p.trim !== false) files = files.slice(0, p.trim);
  return files;
}

/** Sets the owner of the extracted top-level paths (or of enforce_ownership_on); the paths missing and failed. */
async function enforceOwnership(
  ctx: StateContext,
  ret: StateReturn,
  p: Plan,
  contents: ArchiveContents,
): Promise<{ enforceMissing: string[]; enforceFailed: string[] }> {
  const { name } = p;
  const enforceMissing: string[] = [];
  const enforceFailed: string[] = [];
  if (p.user || p.group) {
    let dirs: string[];
    let others: string[];
    if (p.ownOn) [dirs, others] = existsSync(p.ownOn) && statSync(p.ownOn).isDirectory() ? [[p.ownOn], []] : [[], [p.ownOn]];
    else [dirs, others] = [contents.top_level_dirs, [...contents.top_level_files, ...contents.top_level_links]];
    for (const d of dirs) {
      const full = join(name, d);
      if (!existsSync(full) || !statSync(full).isDirectory()) {
        if (!ctx.test) enforceMissing.push(full);
      } else if (await enforceOwner(full, p.uid, p.gid, true, ctx.test).catch(() => (enforceFailed.push(full), false))) {
        ret.changes['updated ownership'] = true;
      }
    }
    for (const f of others) {
      const full = join(name, f);
      if (!(await lstat(full).catch(() => undefined))) {
        if (!ctx.test) {
          enforceMissing.push(full);
          enforceFailed.push(full);
        }
      } else if (await enforceOwner(full, p.uid, p.gid, false, ctx.test).catch(() => (enforceFailed.push(f), false))) {
        ret.changes['updated ownership'] = true;
      }
    }
  }
  return { enforceMissing, enforceFailed };
}

/** Adds the paths whose owner could not be set to the comment (and fails unless if_missing allows). */
function ownershipTrouble(ret: StateReturn, p: Plan, enforceMissing: string[], enforceFailed: string[]): void {
  if (enforceMissing.length) {
    if (!p.ifMissing) ret.result = false;
    ret.comment += `\n\nWhile trying to enforce user/group ownership, the following paths were missing:\n${enforceMissing.map((x) => `\n- ${x}`).join('')}`;
  }
  if (enforceFailed.length) {
    ret.result = false;
    ret.comment += `\n\nWhile trying to enforce user/group ownership, Salt was unable to change ownership on the following paths:\n${enforceFailed.map((x) => `\n- ${x}`).join('')}`;
  }
}

const str: ArgSpec = { type: 'string' };
const bool: ArgSpec = { type: 'boolean' };

export const extractedFn: StateFunction = {
  args: {
    source: { type: 'string', required: true },
    source_hash: str,
    source_hash_name: str,
    source_hash_update: bool,
    skip_files_list_verify: bool,
    skip_verify: bool,
    password: str,
    options: str,
    list_options: str,
    force: bool,
    overwrite: bool,
    clean: bool,
    clean_parent: bool,
    user: { type: ['string', 'number'] },
    group: { type: ['string', 'number'] },
    if_missing: str,
    trim_output: { type: ['boolean', 'number'] },
    use_cmd_unzip: bool,
    extract_perms: bool,
    enforce_toplevel: bool,
    enforce_ownership_on: str,
    archive_format: str,
    keep_source: bool,
    keep: bool,
    saltenv: str,
  },
  // Salt's state takes **kwargs (old formulas pass `format`, `recurse`, ...): they change nothing here
  extraArgs: true,
  run: extracted,
};
