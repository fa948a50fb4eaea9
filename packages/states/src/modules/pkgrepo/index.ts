import { existsSync, readFileSync } from 'node:fs';
import type { Availability, StateContext, StateModule, StateReturn } from '@brine/core';
import { which } from '../../util/which.js';
import { AptSourcesList as SourcesList, aptListRepos as listRepos } from '@brine/exec';
import { RepoError, delRepo, delRepoKey, expandRepoDef, getRepo, modRepo, splitRepo, type AptOptions } from './apt.js';

/** Salt's pkgrepo.managed and pkgrepo.absent for apt (one-line sources, apt-key or signed-by keys). */

export interface PkgrepoModuleOptions {
  /** Work under this root (its etc/apt, var/lib/apt) instead of the host's; for tests and images. */
  root?: string;
}

const TEST_MANAGED = (name: string) =>
  `Package repo '${name}' would be configured. This may cause pkg states to behave differently than stated if this action is repeated without test=True, due to the differences in the configured repositories.`;

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
const sortedWords = (line: string) => {
  const w = line.split(/\s+/).filter(Boolean);
  return [...w.slice(0, 3), ...w.slice(3).sort()];
};

/** Salt's loop over the sanitised definition: true when the existing entry already matches. */
function alreadyConfigured(pre: Record<string, unknown>, want: Record<string, unknown>, kwargs: Record<string, unknown>): boolean {
  for (const [k, v] of Object.entries(want)) {
    if (!(k in pre)) return false;
    if (k === 'comps') {
      if (!same([...(v as string[])].sort(), [...(pre[k] as string[])].sort())) return false;
    } else if (k === 'line') {
      if (want.disabled) continue;
      const [body, , comment] = String(pre.line).split(/(#)/);
      const preWords = sortedWords(body ?? '');
      if (signedByKey(String(v)) !== signedByKey(String(pre.line)) || !same(sortedWords(stripOpts(String(v))), sortedWords(stripOpts(body ?? '')))) {
        if (!same(sortedWords(String(v)), preWords)) return false;
      }
      if (kwargs.comments !== undefined && kwargs.comments !== null) {
        const post = (Array.isArray(kwargs.comments) ? kwargs.comments.map(String) : [String(kwargs.comments)]).join(' ').trim();
        if ((comment ?? '').trim() !== post) return false;
      }
    } else if (k === 'architectures' && (v as string[]).length) {
      if (!same([...new Set(v as string[])].sort(), [...new Set(pre[k] as string[])].sort())) return false;
    } else if (k !== 'architectures' && String(v) !== String(pre[k])) return false;
  }
  return true;
}

// A signed-by line compares by its options' values, not their order (Salt 3007 garbles them).
const optsOf = (line: string) => /\[([^\]]*)\]/.exec(line)?.[1]?.split(/\s+/).filter(Boolean).sort().join(' ') ?? '';
const signedByKey = (line: string) => optsOf(line);
const stripOpts = (line: string) => line.replace(/\s*\[[^\]]*\]/, '');

function isUbuntu(): boolean {
  for (const f of ['/etc/os-release', '/usr/lib/os-release']) {
    if (!existsSync(f)) continue;
    const id = /^ID=("?)([^"\n]*)\1$/m.exec(readFileSync(f, 'utf8'))?.[2];
    return id === 'ubuntu' || id === 'linuxmint';
  }
  return false;
}

async function managed(a: Record<string, unknown>, ctx: StateContext, opts: AptOptions): Promise<StateReturn> {
  const name = String(a.name);
  const ret: StateReturn = { name, changes: {}, result: null, comment: '' };
  const has = (k: string) => a[k] !== undefined && a[k] !== null;
  if (has('key_url') && (has('keyid') || has('keyserver')))
    Object.assign(ret, { result: false, comment: 'You may not use both "keyid"/"keyserver" and "key_url" argument.' });
  if (has('key_text') && (has('keyid') || has('keyserver')))
    Object.assign(ret, { result: false, comment: 'You may not use both "keyid"/"keyserver" and "key_text" argument.' });
  if (has('key_text') && has('key_url')) Object.assign(ret, { result: false, comment: 'You may not use both "key_url" and "key_text" argument.' });
  if (has('repo'))
    return { ...ret, result: false, comment: "'repo' is not a supported argument for this state. The 'name' argument is probably what was intended." };
  if (has('enabled') && has('disabled')) return { ...ret, result: false, comment: 'Only one of enabled/disabled is allowed' };
  if (has('ppa')) return { ...ret, result: false, comment: "Brine's pkgrepo does not manage PPAs (ppa:); give the full 'deb ...' line as the name" };
  if (
    a.allow_insecure_key === false &&
    String(a.key_url ?? '')
      .trim()
      .startsWith('http:')
  ) {
    return { ...ret, result: false, comment: "Cannot have 'key_url' using http with 'allow_insecure_key' set to True" };
  }
  const kwargs: Record<string, unknown> = { ...a };
  delete kwargs.enabled;
  delete kwargs.disabled;
  delete kwargs.allow_insecure_key;
  delete kwargs.aptkey;
  // Salt passes enabled/disabled on to apt only on Ubuntu and Mint
  if (isUbuntu()) kwargs.disabled = has('enabled') ? !a.enabled : has('disabled') ? Boolean(a.disabled) : false;
  const saltenv = typeof a.saltenv === 'string' ? a.saltenv : (ctx.low.__env__ ?? 'base');
  const pre = getRepo(await new SourcesList(opts.root).load(), name);
  const want = await expandRepoDef(opts.root, name, kwargs);
  ret.old_state = pre ?? null;
  if (pre) {
    const p = { ...pre };
    const w = { ...want };
    delete p.file;
    delete w.file;
    if (alreadyConfigured(p, w, kwargs)) return { ...ret, result: true, comment: `Package repo '${name}' already configured`, new_state: pre };
  }
  delete want.file;
  if (ctx.test) {
    ret.comment = TEST_MANAGED(name);
    if (pre) {
      for (const [k, v] of Object.entries(want)) if (!same(v, pre[k])) ret.changes[k] = { new: v, old: pre[k] };
    } else ret.changes.repo = name;
    return ret;
  }
  if (kwargs.clean_file && typeof kwargs.file === 'string') {
    const { writeFile } = await import('node:fs/promises');
    await writeFile(new SourcesList(opts.root).real(kwargs.file), '');
  }
  try {
    await modRepo(ctx, opts, name, kwargs, saltenv);
  } catch (e) {
    if (!(e instanceof RepoError)) throw e;
    return { ...ret, result: false, comment: `Failed to configure repo '${name}': ${e.message}` };
  }
  const post = getRepo(await new SourcesList(opts.root).load(), name) ?? {};
  if (pre) {
    for (const k of Object.keys(want)) if (!same(post[k], pre[k])) ret.changes[k] = { new: post[k], old: pre[k] };
  } else ret.changes = { repo: name };
  return { ...ret, result: true, comment: `Configured package repo '${name}'`, new_state: post };
}

async function absent(a: Record<string, unknown>, ctx: StateContext, opts: AptOptions): Promise<StateReturn> {
  const name = String(a.name);
  const ret: StateReturn = { name, changes: {}, result: null, comment: '' };
  const keyid = a.keyid ?? a.keyid_ppa;
  const strip = name
    .split(/\s+/)
    .map((w) => (/^(https?|ftp):\/\//.test(w) ? w.replace(/\/+$/, '') : w))
    .join(' ');
  let repo = getRepo(await new SourcesList(opts.root).load(), strip);
  if (repo) {
    const archs = new Set(splitRepo(strip).architectures);
    const have = new Set(repo.architectures as string[]);
    if (archs.size !== have.size || [...archs].some((x) => !have.has(x))) repo = undefined;
  }
  ret.old_state = repo ?? null;
  if (!repo) return { ...ret, result: true, comment: `Package repo ${name} is absent`, new_state: null };
  if (ctx.test) {
    ret.comment = `Package repo '${name}' will be removed. This may cause pkg states to behave differently than stated if this action is repeated without test=True, due to the differences in the configured repositories.`;
    return ret;
  }
  try {
    await delRepo(ctx, opts, strip);
  } catch (e) {
    if (!(e instanceof RepoError)) throw e;
    return { ...ret, result: false, comment: e.message };
  }
  ret.changes.repo = name;
  ret.comment = `Removed repo ${name}`;
  ret.new_state = null;
  if (keyid === undefined || keyid === null) return { ...ret, result: true };
  try {
    ret.changes.keyid = await delRepoKey(ctx, opts, String(keyid));
    return { ...ret, result: true, comment: `${ret.comment}, and keyid ${String(keyid)}` };
  } catch (e) {
    if (!(e instanceof RepoError)) throw e;
    return { ...ret, result: false, comment: `${ret.comment}, but failed to remove key: ${e.message}` };
  }
}

export function pkgrepoModule(options: PkgrepoModuleOptions = {}): StateModule {
  // `aptkey: False` in the state keeps apt-key out of it even where it is installed, as in Salt
  const opts = (a: Record<string, unknown>): AptOptions => ({ root: options.root ?? '/', aptKey: Boolean(which('apt-key')) && a.aptkey !== false });
  return {
    name: 'pkgrepo',
    available(): Availability {
      return which('apt-get') ? { available: true } : { available: false, reason: 'apt-get not found (pkgrepo manages apt sources only)' };
    },
    functions: {
      managed: { args: {}, extraArgs: true, run: (a, ctx) => managed(a, ctx, opts(a)) },
      absent: { args: {}, extraArgs: true, run: (a, ctx) => absent(a, ctx, opts(a)) },
    },
  };
}

export { listRepos };
