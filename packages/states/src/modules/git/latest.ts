import { existsSync, statSync } from 'node:fs';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import type { ArgSpec, StateContext, StateFunction, StateReturn } from '@brine/core';
import { asBool } from '../../util/args.js';
import { GitError, Repo, remoteRefs, type GitOpts } from './repo.js';
import { runGit, gitError } from './run-git.js';
import { fail, joinComments, neutral, type Ret } from './latest-ret.js';
import { update, upstreamAction } from './latest-update.js';
import { revsEqual, type Remote, type RevType, type Want } from './latest-want.js';

/** Salt's git.latest through the git CLI: clone, or fetch and bring the checkout to the remote rev (latest-update.ts). */

function resolveRemote(w: Want, refs: Record<string, string>): Remote {
  const head = refs.HEAD ?? null;
  let defaultBranch: string | null = null;
  if (head !== null) {
    for (const [ref, sha] of Object.entries(refs)) {
      if (ref.startsWith('refs/heads/') && sha === head) {
        defaultBranch = ref.slice('refs/heads/'.length);
        break;
      }
    }
  }
  let rev: string | null = null;
  let type: RevType = null;
  let upstream: string | null | false = false;
  if (w.rev === 'HEAD') {
    if (head !== null) [rev, type, upstream] = [head, 'sha1', null];
  } else if (`refs/heads/${w.rev}` in refs) {
    [rev, type, upstream] = [refs[`refs/heads/${w.rev}`]!, 'branch', `${w.remote}/${w.rev}`];
  } else if (`refs/tags/${w.rev}^{}` in refs) {
    [rev, type] = [refs[`refs/tags/${w.rev}^{}`]!, 'tag'];
  } else if (`refs/tags/${w.rev}` in refs) {
    [rev, type] = [refs[`refs/tags/${w.rev}`]!, 'tag'];
  } else if (w.rev.length <= 40 && /^[0-9a-fA-F]+$/.test(w.rev)) {
    w.rev = w.rev.toLowerCase();
    [rev, type] = [w.rev, 'sha1'];
  }
  let loc: string | null = null;
  if (type === 'sha1' && rev) loc = w.rev === 'HEAD' ? `remote HEAD (${rev.slice(0, 7)})` : rev.slice(0, 7);
  else if (rev !== null) loc = `${type === 'branch' ? upstream : w.rev} (${rev.slice(0, 7)})`;
  return { rev, type, upstream, loc, defaultBranch, hasHead: 'HEAD' in refs };
}

async function clone(ctx: StateContext, ret: Ret, w: Want, r: Remote, g: GitOpts): Promise<Ret> {
  const comments: string[] = [];
  if (existsSync(w.target) && statSync(w.target).isDirectory()) {
    const contents = await readdir(w.target);
    if (w.forceClone) {
      if (ctx.test) {
        ret.changes['forced clone'] = true;
        ret.changes.new = `${w.name} => ${w.target}`;
        return neutral(
          ret,
          `Target directory ${w.target} exists. Since force_clone=True, the contents of ${w.target} would be deleted, and ${w.name} would be cloned into this directory.`,
        );
      }
      for (const entry of contents) await rm(join(w.target, entry), { recursive: true, force: true });
      ret.changes['forced clone'] = true;
    } else if (contents.length) {
      return fail(
        ret,
        `Target '${w.target}' exists, is non-empty and is not a git repository. Set the 'force_clone' option to True to remove this directory's contents and proceed with cloning the remote repository`,
      );
    }
  }
  if (ctx.test) {
    ret.changes.new = `${w.name} => ${w.target}`;
    return neutral(ret, `Repository ${w.name} would be cloned to ${w.target}`);
  }
  const opts = [...(w.remote !== 'origin' ? ['--origin', w.remote] : []), ...(w.depth !== undefined ? ['--depth', String(w.depth), '--branch', w.rev] : [])];
  const c = await runGit(ctx, ['clone', ...opts, w.name, w.target], { user: g.user, env: g.env });
  if (c.retcode !== 0) return fail(ret, `Clone failed: ${gitError(c)}`, comments);
  ret.changes.new = `${w.name} => ${w.target}`;
  comments.push(`${w.name} cloned to ${w.target}`);
  const repo = new Repo(ctx, w.target, g);
  try {
    if (!r.rev) {
      if (w.rev !== 'HEAD') return fail(ret, `Repository was cloned but is empty, so ${w.remote}/${w.rev} cannot be checked out`, comments);
    } else {
      if (r.type === 'tag' && !(await repo.refs('refs/tags/')).includes(w.rev)) return fail(ret, `Revision '${w.rev}' does not exist in clone`, comments);
      if (w.branch !== undefined && !(await repo.refs('refs/heads/')).includes(w.branch)) {
        await repo.git(['checkout', '-b', w.branch, w.rev === 'HEAD' ? r.rev : r.upstream || w.rev]);
        comments.push(`Branch '${w.branch}' checked out, with ${r.loc} as a starting point`);
      }
      const localRev = await repo.revision();
      const localBranch = await repo.currentBranch();
      if (localBranch === null && !r.hasHead) {
        return fail(
          ret,
          "Remote HEAD refers to a ref that does not exist. This can happen when the default branch on the remote repository is renamed or deleted. If you are unable to fix the remote repository, you can work around this by setting the 'branch' argument (which will ensure that the named branch is created if it does not already exist).",
          comments,
        );
      }
      if (!revsEqual(localRev, r.rev, r.type)) {
        await repo.git(['reset', '--hard', r.rev]);
        comments.push(`Repository was reset to ${r.loc}`);
      }
      const up = await upstreamAction(repo, w, localBranch, r.upstream, await repo.refs('refs/heads/'));
      if (up.opts !== null) {
        await repo.git(['branch', ...up.opts]);
        comments.push(up.action);
      }
    }
    if (w.submodules && r.rev) await repo.git(['submodule', 'update', '--init', '--recursive']);
  } catch (e) {
    if (!(e instanceof GitError)) throw e;
    return fail(ret, e.message, comments);
  }
  const newRev = await repo.revision();
  ret.comment = joinComments(comments);
  if (newRev !== null) ret.changes.revision = { old: null, new: newRev };
  ret.new_state = { target: w.target, revision: newRev };
  return ret;
}

function withAuth(url: string, user: unknown, pass: unknown): string {
  if (user === undefined || user === null) return url;
  const u = new URL(url);
  if (u.protocol !== 'https:') throw new Error('Basic auth is only supported for HTTPS');
  u.username = String(user);
  if (pass !== undefined && pass !== null) u.password = String(pass);
  return u.toString();
}

async function latest(a: Record<string, unknown>, ctx: StateContext): Promise<StateReturn> {
  const ret: Ret = { name: String(a.name), result: true, comment: '', changes: {} };
  const forceReset = a.force_reset === 'remote-changes' ? 'remote-changes' : a.force_reset === undefined ? false : a.force_reset;
  if (forceReset !== true && forceReset !== false && forceReset !== 'remote-changes')
    return fail(ret, "'force_reset' must be one of True, False, or 'remote-changes'");
  const target = String(a.target);
  if (!isAbsolute(target)) return fail(ret, `target '${target}' is not an absolute path`);
  const remoteName = String(a.remote ?? 'origin');
  const fetchTags = asBool(a.fetch_tags, true);
  const w: Want = {
    name: String(a.name),
    target,
    rev: String(a.rev ?? 'HEAD'),
    branch: a.branch === undefined || a.branch === null ? undefined : String(a.branch),
    remote: remoteName,
    forceReset,
    forceClone: asBool(a.force_clone),
    forceCheckout: asBool(a.force_checkout),
    forceFetch: asBool(a.force_fetch),
    updateHead: asBool(a.update_head, true),
    depth: a.depth === undefined || a.depth === null ? undefined : Number(a.depth),
    submodules: asBool(a.submodules),
    syncTags: asBool(a.sync_tags, true),
    refspecs: fetchTags
      ? [
          `refs/heads/${String(a.refspec_branch ?? '*')}:refs/remotes/${remoteName}/${String(a.refspec_branch ?? '*')}`,
          `+refs/tags/${String(a.refspec_tag ?? '*')}:refs/tags/${String(a.refspec_tag ?? '*')}`,
        ]
      : [],
  };
  if (!w.rev) return fail(ret, `'${w.rev}' is not a valid value for the 'rev' argument`);
  if (asBool(a.bare) || asBool(a.mirror)) return fail(ret, "Brine's git.latest manages working copies only: 'bare' and 'mirror' are not supported");
  if (existsSync(target) && statSync(target).isFile()) return fail(ret, `Target '${target}' exists and is a regular file, cannot proceed`);
  try {
    w.name = withAuth(w.name, a.https_user, a.https_pass);
  } catch (e) {
    return fail(ret, (e as Error).message);
  }
  const identity = a.identity === undefined || a.identity === null ? [] : Array.isArray(a.identity) ? a.identity.map(String) : [String(a.identity)];
  // salt:// keys come from the file server into a private temp dir for this run only
  const keyDir = identity.some((i) => i.startsWith('salt://')) ? await mkdtemp(join(tmpdir(), 'brine-git-key-')) : undefined;
  try {
    for (const [n, id] of identity.entries()) {
      if (id.startsWith('salt://')) {
        const body = await ctx.files.get(id, String(ctx.low.__env__ ?? 'base'));
        if (!body) return fail(ret, `identity '${id}' does not exist.`);
        identity[n] = join(keyDir!, `key${n}`);
        await writeFile(identity[n]!, body, { mode: 0o600 });
      } else if (!isAbsolute(id)) return fail(ret, `identity '${id}' is not an absolute path`);
    }
    // as Salt: a missing key file is skipped, and with none left the state fails before any
    // command runs (so before switching to `user`, who need not exist)
    const missing = identity.filter((i) => !existsSync(i));
    if (identity.length && missing.length === identity.length) {
      return fail(
        ret,
        `Failed to check remote refs: Unable to authenticate using identity file:\n\nThe following identity file(s) were not found: ${missing.join(', ')}`,
      );
    }
    return await latestWith(
      ctx,
      ret,
      w,
      a,
      target,
      identity.filter((i) => !missing.includes(i)),
    );
  } finally {
    if (keyDir) await rm(keyDir, { recursive: true, force: true });
  }
}

async function latestWith(ctx: StateContext, ret: Ret, w: Want, a: Record<string, unknown>, target: string, identity: string[]): Promise<StateReturn> {
  const g: GitOpts = {
    user: a.user === undefined || a.user === null ? undefined : String(a.user),
    env: identity.length ? { GIT_SSH_COMMAND: `ssh ${identity.map((i) => `-i '${i}'`).join(' ')} -o IdentitiesOnly=yes` } : undefined,
  };
  let refs: Record<string, string>;
  try {
    refs = await remoteRefs(ctx, w.name, g);
  } catch (e) {
    if (!(e instanceof GitError)) throw e;
    return fail(ret, `Failed to check remote refs: ${e.message}`);
  }
  const r = resolveRemote(w, refs);
  if (w.depth !== undefined && r.type !== 'branch' && r.type !== 'tag') {
    return fail(ret, "When 'depth' is used, 'rev' must be set to the name of a branch or tag on the remote repository");
  }
  if (r.rev === null && w.rev !== 'HEAD') return fail(ret, `No revision matching '${w.rev}' exists in the remote repository`);
  const isRepo = existsSync(join(target, '.git'));
  ret.old_state = { target, revision: isRepo ? await new Repo(ctx, target, g).revision() : null };
  try {
    if (isRepo) {
      const out = await update(ctx, ret, w, r, g);
      if (out.result === true && out.new_state === undefined) out.new_state = out.old_state;
      return out;
    }
    return await clone(ctx, ret, w, r, g);
  } catch (e) {
    if (!(e instanceof GitError)) throw e;
    return fail(ret, e.message);
  }
}

const str: ArgSpec = { type: 'string' };
const bool: ArgSpec = { type: 'boolean' };

export const latestFn: StateFunction = {
  args: {
    target: { type: 'string', required: true },
    rev: { type: ['string', 'number'] },
    branch: { type: ['string', 'number'] },
    user: str,
    password: str,
    update_head: bool,
    force_checkout: bool,
    force_clone: bool,
    force_fetch: bool,
    force_reset: { type: ['boolean', 'string'] },
    submodules: bool,
    bare: bool,
    mirror: bool,
    remote: str,
    fetch_tags: bool,
    sync_tags: bool,
    depth: { type: 'number' },
    identity: { type: ['string', 'list'] },
    https_user: str,
    https_pass: str,
    refspec_branch: str,
    refspec_tag: str,
    output_encoding: str,
  },
  run: latest,
};
