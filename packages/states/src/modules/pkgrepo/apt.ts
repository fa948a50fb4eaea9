import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import type { CommandOptions, StateContext } from '@brine/core';
import {
  type AptEntry as Entry,
  AptSourcesList as SourcesList,
  aptEntryText as entryText,
  aptLineOptions as lineOptions,
  parseAptEntry as parseEntry,
  aptSaltInvalid as saltInvalid,
  aptSignedBy as signedByOf,
  aptListRepos as listRepos,
} from '@brine/exec';

/** Salt's aptpkg repo functions (list_repos, get_repo, mod_repo, del_repo) and key imports. */

export class RepoError extends Error {}

export interface AptOptions {
  /** Work under this root instead of / (apt-key and apt-get get an APT_CONFIG pointing there). */
  root: string;
  /** Whether apt-key exists (Salt imports keys with it when it does). */
  aptKey: boolean;
}

export function splitRepo(repo: string) {
  const e = parseEntry(repo, '');
  const signedby = signedByOf(repo);
  return {
    invalid: signedby ? saltInvalid(repo) : e.invalid,
    type: e.type,
    architectures: e.architectures,
    uri: e.uri,
    dist: e.dist,
    comps: e.comps,
    signedby,
  };
}

export function getRepo(sources: SourcesList, repo: string): Record<string, unknown> | undefined {
  const want = splitRepo(repo);
  for (const subs of Object.values(listRepos(sources))) {
    for (const sub of subs) {
      if (sub.type === want.type && String(sub.uri).replace(/\/+$/, '') === want.uri.replace(/\/+$/, '') && sub.dist === want.dist) {
        if (!want.comps.length) return sub;
        if (want.comps.some((c) => (sub.comps as string[]).includes(c))) return sub;
      }
    }
  }
  return undefined;
}

/** Salt's _expand_repo_def: what the entry would look like once configured. */
export async function expandRepoDef(root: string, repo: string, kwargs: Record<string, unknown>): Promise<Record<string, unknown>> {
  const src = parseEntry(repo, '/etc/apt/sources.list');
  if (typeof kwargs.architectures === 'string') src.architectures = kwargs.architectures.split(',').map((s) => s.trim());
  if (typeof kwargs.comps === 'string') src.comps = kwargs.comps.split(',').map((s) => s.trim());
  if (typeof kwargs.uri === 'string') src.uri = kwargs.uri;
  if (typeof kwargs.dist === 'string') src.dist = kwargs.dist;
  if (typeof kwargs.disabled === 'boolean') src.disabled = kwargs.disabled;
  const list = await new SourcesList(root).load();
  const e = list.add(src.type, src.uri, src.dist, src.comps, src.architectures);
  let line = e.line;
  if (src.disabled) {
    if (!line.trim().startsWith('#')) line = `#${line}`;
  } else line = line.trimStart().replace(/^#+/, '');
  const signedby = signedByOf(repo);
  const out: Record<string, unknown> = {
    file: e.file,
    comps: e.comps,
    disabled: src.disabled,
    dist: e.dist,
    type: e.type,
    uri: e.uri,
    line: line.trim(),
    architectures: e.architectures,
    signedby,
  };
  if (signedby && !String(out.line).includes(signedby)) {
    // the options as the repo line gives them (Salt 3007 writes their names here, a bug)
    const words = String(out.line).split(/\s+/);
    const opts = `[${[...lineOptions(repo).values()].map((o) => o.full).join(' ')}]`;
    if (words[1]?.startsWith('[')) words[1] = opts;
    else words.splice(1, 0, opts);
    out.line = words.join(' ');
  }
  return out;
}

async function withAptConfig<T>(root: string, fn: (env: Record<string, string>) => Promise<T>): Promise<T> {
  if (root === '/') return fn({});
  const dir = await mkdtemp(join(tmpdir(), 'brine-apt-'));
  try {
    const conf = join(dir, 'apt.conf');
    await writeFile(
      conf,
      `Dir::Etc "${join(root, 'etc/apt')}/";\nDir::State::Lists "${join(root, 'var/lib/apt/lists')}/";\nDir::Cache "${join(root, 'var/cache/apt')}/";\n`,
    );
    return await fn({ APT_CONFIG: conf });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function apt(ctx: StateContext, opts: AptOptions, argv: string[], extra: CommandOptions = {}) {
  return withAptConfig(opts.root, (env) => ctx.cmd.run(argv, { ...extra, env: { DEBIAN_FRONTEND: 'noninteractive', ...env, ...extra.env } }));
}

/** `apt-get update`; Salt does not fail the state when it fails. */
export async function refreshDb(ctx: StateContext, opts: AptOptions): Promise<void> {
  await apt(ctx, opts, ['apt-get', '-q', 'update']);
}

async function keyBytes(ctx: StateContext, url: string, saltenv: string): Promise<Buffer | undefined> {
  if (url.startsWith('salt://')) return ctx.files.get(url, saltenv);
  if (/^https?:\/\//.test(url)) {
    const res = await fetch(url);
    return res.ok ? Buffer.from(await res.arrayBuffer()) : undefined;
  }
  const { readFile } = await import('node:fs/promises');
  const p = url.replace(/^file:\/\//, '');
  return isAbsolute(p) ? readFile(p).catch(() => undefined) : undefined;
}

async function importKeys(ctx: StateContext, opts: AptOptions, kwargs: Record<string, unknown>, saltenv: string, signedby: string): Promise<void> {
  if (kwargs.keyid !== undefined && kwargs.keyid !== null) {
    const keyserver = kwargs.keyserver;
    if (!keyserver) throw new RepoError('both keyserver and keyid options required.');
    for (const raw of Array.isArray(kwargs.keyid) ? kwargs.keyid : [kwargs.keyid]) {
      const key = typeof raw === 'number' ? `0x${raw.toString(16)}` : String(raw);
      if (opts.aptKey) {
        const exported = await apt(ctx, opts, ['apt-key', 'export', key]);
        if (exported.stdout.startsWith('-----BEGIN PGP')) continue;
        const r = await apt(ctx, opts, ['apt-key', 'adv', '--batch', '--keyserver', String(keyserver), '--logger-fd', '1', '--recv-keys', key]);
        if (r.retcode !== 0) throw new RepoError(`Error: key retrieval failed: ${r.stdout.trim()}`);
      } else {
        const r = await ctx.cmd.run(['gpg', '--no-default-keyring', '--keyring', signedby, '--batch', '--keyserver', String(keyserver), '--recv-keys', key]);
        if (r.retcode !== 0) throw new RepoError(`Error: Could not add key: ${key}`);
      }
    }
    return;
  }
  let body: Buffer | undefined;
  let what: string;
  if (kwargs.key_url !== undefined && kwargs.key_url !== null) {
    what = `from ${String(kwargs.key_url)}`;
    body = await keyBytes(ctx, String(kwargs.key_url), saltenv);
    if (!body) throw new RepoError(`Error: file not found: ${String(kwargs.key_url)}`);
  } else if (kwargs.key_text !== undefined && kwargs.key_text !== null) {
    what = `:\n${String(kwargs.key_text)}`;
    body = Buffer.from(String(kwargs.key_text));
  } else return;
  const dir = await mkdtemp(join(tmpdir(), 'brine-key-'));
  try {
    const file = join(dir, 'key');
    await writeFile(file, body);
    if (opts.aptKey) {
      const r = await apt(ctx, opts, ['apt-key', 'add', file]);
      if (!r.stdout.toUpperCase().startsWith('OK')) throw new RepoError(`Error: failed to add key ${what}`);
      return;
    }
    const armored = body.toString('latin1').includes('-----BEGIN PGP');
    const out = opts.root === '/' ? signedby : join(opts.root, signedby);
    const r = armored ? await ctx.cmd.run(['gpg', '--batch', '--yes', '--dearmor', '--output', out, file]) : await ctx.cmd.run(['cp', file, out]);
    if (r.retcode !== 0) throw new RepoError(`Error: Could not add key: ${String(kwargs.key_url ?? 'key_text')}`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Salt's mod_repo for Debian (no PPAs): keys first, then the entry added or changed, then a refresh. */
export async function modRepo(ctx: StateContext, opts: AptOptions, repo: string, kwargs: Record<string, unknown>, saltenv: string): Promise<void> {
  const refresh = kwargs.refresh_db !== undefined ? Boolean(kwargs.refresh_db) : kwargs.refresh !== undefined ? Boolean(kwargs.refresh) : true;
  const sources = await new SourcesList(opts.root).load();
  const repos = sources.list.filter((e) => !saltInvalid(e.line));
  const want = splitRepo(repo);
  if (want.invalid) throw new RepoError(`Name ${repo} is not valid. This must be the complete repo entry as seen in the sources file`);
  const fullComps = new Set(want.comps.map((c) => c.trim()));
  if (!opts.aptKey && !want.signedby) throw new RepoError("missing 'signedby' option when apt-key is missing");
  await importKeys(ctx, opts, kwargs, saltenv, want.signedby);
  let comps: string[];
  if (typeof kwargs.comps === 'string') {
    comps = kwargs.comps.split(',').map((c) => c.trim());
    for (const c of comps) fullComps.add(c);
  } else comps = [...fullComps];
  const architectures = typeof kwargs.architectures === 'string' ? kwargs.architectures.split(',') : want.architectures;
  const disabled = kwargs.disabled !== undefined ? Boolean(kwargs.disabled) : kwargs.enabled !== undefined ? !kwargs.enabled : undefined;
  let mod: Entry | undefined;
  for (const e of repos) {
    const matches =
      (e.type === want.type && e.uri.replace(/\/+$/, '') === want.uri.replace(/\/+$/, '') && e.dist === want.dist) ||
      (e.dist === kwargs.dist && e.type === kwargs.type);
    if (!matches) continue;
    if ([...fullComps].some((c) => e.comps.includes(c)) || !e.comps.length || architectures.join(',') !== e.architectures.join(',')) {
      mod = e;
      break;
    }
  }
  const comment =
    kwargs.comments === undefined || kwargs.comments === null
      ? undefined
      : (Array.isArray(kwargs.comments) ? kwargs.comments.map(String) : [String(kwargs.comments)]).join(' ').trim();
  const fresh = parseEntry(repo, sources.sourcelist);
  if (!mod) {
    mod = fresh;
    sources.list.push(mod);
  }
  if (comment !== undefined) mod.comment = comment;
  mod.line = fresh.line.endsWith('\n') ? fresh.line : `${fresh.line}\n`;
  mod.comps = comps;
  mod.architectures = architectures;
  if (disabled !== undefined) mod.disabled = disabled;
  if (typeof kwargs.file === 'string') mod.file = kwargs.file;
  if (typeof kwargs.dist === 'string') mod.dist = kwargs.dist;
  if (mod.uri !== want.uri) {
    mod.uri = want.uri;
    mod.line = entryText(mod);
  }
  await sources.save();
  if (refresh) await refreshDb(ctx, opts);
}

/** Salt's del_repo: the repo's components leave every matching entry; emptied list.d files go. */
export async function delRepo(ctx: StateContext, opts: AptOptions, repo: string): Promise<void> {
  const { unlink } = await import('node:fs/promises');
  const sources = await new SourcesList(opts.root).load();
  const want = splitRepo(repo);
  if (want.invalid && !want.type) throw new RepoError(`Error: repo '${repo}' not a well formatted definition`);
  const deletedFrom = new Map<string, number>();
  for (const e of sources.list.filter((x) => !x.invalid)) {
    if (
      e.type === want.type &&
      e.architectures.join(',') === want.architectures.join(',') &&
      e.uri.replace(/\/+$/, '') === want.uri.replace(/\/+$/, '') &&
      e.dist === want.dist
    ) {
      const common = e.comps.filter((c) => want.comps.includes(c));
      if (common.length || (!e.comps.length && !want.comps.length)) {
        deletedFrom.set(e.file, 0);
        e.comps = e.comps.filter((c) => !want.comps.includes(c));
        if (!e.comps.length) sources.list.splice(sources.list.indexOf(e), 1);
      }
    }
  }
  if (!deletedFrom.size) throw new RepoError(`Repo ${repo} doesn't exist in the sources.list(s)`);
  await sources.save();
  for (const e of sources.list) if (deletedFrom.has(e.file)) deletedFrom.set(e.file, deletedFrom.get(e.file)! + 1);
  for (const [file, count] of deletedFrom) {
    if (count === 0 && file.includes('sources.list.d/')) await unlink(sources.real(file)).catch(() => undefined);
  }
  await refreshDb(ctx, opts);
}

/** `apt-key del KEYID` (Salt's del_repo_key for a plain keyid). */
export async function delRepoKey(ctx: StateContext, opts: AptOptions, keyid: string): Promise<string> {
  const r = await apt(ctx, opts, ['apt-key', 'del', keyid]);
  if (r.retcode !== 0) throw new RepoError(`Failed to remove keyid ${keyid}: ${(r.stderr || r.stdout).trim()}`);
  return keyid;
}
