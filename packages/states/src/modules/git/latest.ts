import { existsSync, statSync } from 'node:fs';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import type { ArgSpec, StateContext, StateFunction, StateReturn } from '@brine/core';
import { asBool } from '../../util/args.js';
import { GitError, Repo, remoteRefs, type GitOpts } from './repo.js';
import { runGit, gitError } from './run-git.js';

/** Salt's git.latest through the git CLI: clone, or fetch and bring the checkout to the remote rev. */

type RevType = 'sha1' | 'branch' | 'tag' | null;

const short = (sha: string | null | undefined): string | null => (sha ? sha.slice(0, 7) : null);
const joinComments = (c: string[]): string => c.join('. ') + (c.length > 1 ? '.' : '');

function revsEqual(a: string | null, b: string | null, type: RevType): boolean {
  if ((a === null) !== (b === null)) return false;
  if (a === null || b === null) return true;
  return type === 'sha1' ? a.startsWith(b) : a === b;
}

interface Ret extends StateReturn {
  changes: Record<string, unknown>;
}

function fail(ret: Ret, msg: string, comments: string[] = []): Ret {
  ret.result = false;
  ret.comment = comments.length ? `${msg}\n\nChanges already made: ${joinComments(comments)}` : msg;
  return ret;
}

function upToDate(ret: Ret, target: string, test: boolean, comments: string[] = [], localChanges = false): Ret {
  ret.comment = `Repository ${target} is up-to-date`;
  if (localChanges) ret.comment += ", but with uncommitted changes. Set 'force_reset' to True to purge uncommitted changes.";
  if (comments.length) ret.comment += `\n\nChanges ${test ? 'that would be ' : ''}made: ${joinComments(comments)}`;
  return ret;
}

function neutral(ret: Ret, comment: string): Ret {
  ret.result = null;
  ret.comment = comment;
  return ret;
}

interface Want {
  name: string;
  target: string;
  rev: string;
  branch?: string;
  remote: string;
  forceReset: boolean | 'remote-changes';
  forceClone: boolean;
  forceCheckout: boolean;
  forceFetch: boolean;
  updateHead: boolean;
  depth?: number;
  submodules: boolean;
  refspecs: string[];
  syncTags: boolean;
}

interface Remote {
  rev: string | null;
  type: RevType;
  upstream: string | null | false;
  loc: string | null;
  defaultBranch: string | null;
  hasHead: boolean;
}

function notFastForward(
  ret: Ret,
  w: Want,
  pre: string | null,
  post: string | null,
  localBranch: string | null,
  remote: Remote,
  localChanges: boolean,
  comments: string[],
): Ret {
  let branchMsg = '';
  if (w.branch === undefined) {
    if (w.rev !== 'HEAD') {
      if (localBranch !== w.rev) {
        branchMsg = ` The desired rev (${w.rev}) differs from the name of the local branch (${localBranch}), if the desired rev is a branch name then a forced update could possibly be avoided by setting the 'branch' argument to '${w.rev}' instead.`;
      }
    } else if (remote.defaultBranch !== null && localBranch !== remote.defaultBranch) {
      const d = remote.defaultBranch;
      branchMsg = ` The default remote branch (${d}) differs from the local branch (${localBranch}). This could be caused by changing the default remote branch, or if the local branch was manually changed. Rather than forcing an update, it may be advisable to set the 'branch' argument to '${d}' instead. To ensure that this state follows the '${d}' branch instead of the remote HEAD, set the 'rev' argument to '${d}'.`;
    }
  }
  const p = short(pre);
  const q = short(post);
  const where = localChanges && p !== q ? `from ${p} to ${q}` : `to ${q}`;
  const afterCheckout = w.branch !== undefined && w.branch !== localBranch ? ` (after checking out local branch '${w.branch}')` : '';
  const why = localChanges ? 'there are uncommitted changes' : 'this is not a fast-forward merge';
  return fail(
    ret,
    `Repository would be updated ${where}${afterCheckout}, but ${why}. Set 'force_reset' to True${localChanges ? " (or 'remote-changes')" : ''} to force this update${localChanges ? ' and discard these changes' : ''}.${branchMsg}`,
    comments,
  );
}

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

const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** Which `git branch` options set or unset the upstream, and the comment for it. */
async function upstreamAction(repo: Repo, w: Want, baseBranch: string | null, desired: string | null | false, localBranches: string[]) {
  const upstream = baseBranch === null ? null : ((await repo.revParse(`${baseBranch}@{upstream}`, ['--abbrev-ref'])) ?? false);
  const opts = () => (w.branch !== undefined && !localBranches.includes(w.branch) ? null : ['--set-upstream-to', String(desired)]);
  if (!upstream && desired)
    return { upstream, action: `Tracking branch was set to ${desired}`, would: `Tracking branch would be set to ${desired}`, opts: opts() };
  if (upstream && desired === false)
    return { upstream, action: 'Tracking branch was unset', would: 'Tracking branch would be unset', opts: ['--unset-upstream'] };
  if (desired && upstream !== desired)
    return { upstream, action: `Tracking branch was updated to ${desired}`, would: `Tracking branch would be updated to ${desired}`, opts: opts() };
  return { upstream, action: '', would: '', opts: null as string[] | null };
}

/** Whether the remote's revision is in the local repository already (no fetch needed); a string is the failure (a moved tag). */
async function remoteRevPresent(
  repo: Repo,
  w: Want,
  r: Remote,
  baseRev: string | null,
  remotes: Record<string, string>,
  localTags: Set<string>,
): Promise<boolean | string> {
  if (r.type === 'sha1' && baseRev !== null && r.rev !== null && baseRev.startsWith(r.rev)) return true;
  if (r.rev === null || (await repo.revParse(`${r.rev}^{commit}`)) === undefined) return false;
  if (r.type === 'branch') return w.remote in remotes && (await repo.revParse(String(r.upstream))) === r.rev;
  if (r.type !== 'tag') return true;
  if (!localTags.has(w.rev)) return false;
  const tagSha = (await repo.revParse(`${w.rev}^{commit}`)) ?? null;
  if (tagSha === r.rev) return true;
  if (w.forceReset) return false;
  return `'${w.rev}' is a tag, but the remote SHA1 for this tag (${short(r.rev)}) doesn't match the local SHA1 (${short(tagSha)}). Set 'force_reset' to True to force this update.`;
}

/** What update() found, for the test-mode report. */
interface Found {
  localRev: string | null;
  localBranches: string[];
  branchChange: boolean;
  revsMatch: boolean;
  hasRemoteRev: boolean;
  fastForward: boolean | null;
  mergeAction: string;
  wouldTrack: string;
}

/** A test run's answer: what the update would do, changing nothing. */
function wouldUpdate(ret: Ret, w: Want, r: Remote, f: Found): Ret {
  const actions: string[] = [];
  if (!f.hasRemoteRev) actions.push(`Remote '${w.remote}' would be fetched`);
  if (!f.revsMatch && (w.updateHead || f.branchChange)) ret.changes.revision = { old: f.localRev, new: r.rev };
  if (f.branchChange) {
    if (!f.localBranches.includes(w.branch!)) {
      actions.push(`New branch '${w.branch}' would be checked out, with ${r.loc} as a starting point`);
      if (r.upstream) actions.push(`Tracking branch would be set to ${r.upstream}`);
    } else actions.push(`Branch '${w.branch}' would be checked out and ${f.mergeAction} to ${short(r.rev)}`);
  } else if (!f.revsMatch) {
    if (!w.updateHead)
      actions.push(`Local HEAD (${(f.localRev ?? '').slice(0, 7)}) does not match ${r.loc} but update_head=False, HEAD would not be updated locally`);
    else if (f.fastForward === true) actions.push(`Repository would be fast-forwarded from ${short(f.localRev)} to ${short(r.rev)}`);
    else actions.push(`Repository would be ${w.forceReset && f.hasRemoteRev ? 'hard-reset' : 'updated'} from ${short(f.localRev)} to ${short(r.rev)}`);
  }
  if (f.wouldTrack) actions.push(f.wouldTrack);
  if (Object.keys(ret.changes).length) return neutral(ret, joinComments(actions));
  if (!f.revsMatch && !w.updateHead && actions.length) {
    ret.comment = joinComments(actions);
    return ret;
  }
  return upToDate(ret, w.target, true, actions);
}

/** Notes the remote's new tags and drops those it deleted (sync_tags); true when the tag sets differ (a fetch is due). */
async function compareTags(repo: Repo, w: Want, ret: Ret, comments: string[], localTags: Set<string>): Promise<boolean> {
  const remoteTags = await repo.remoteTags(w.remote);
  if ([...remoteTags].sort().join('\n') === [...localTags].sort().join('\n')) return false;
  const newTags = [...remoteTags].filter((t) => !localTags.has(t));
  const deleted = [...localTags].filter((t) => !remoteTags.has(t));
  if (newTags.length) ret.changes.new_tags = newTags;
  if (w.syncTags && deleted.length) {
    const removed: string[] = [];
    for (const tag of deleted) if ((await repo.tryGit(['tag', '-d', tag])) !== undefined) removed.push(tag);
    if (removed.length) {
      ret.changes.deleted_tags = removed;
      comments.push(`The following tags were removed from the local checkout: ${removed.join(', ')}`);
    }
  }
  return true;
}

/** Resets, fast-forwards and re-tracks the checked-out branch, then the submodules; a string is the failure. */
async function moveHead(
  repo: Repo,
  w: Want,
  r: Remote,
  ret: Ret,
  comments: string[],
  m: { fastForward: boolean | null; localChanges: boolean; baseRev: string | null; upstreamOpts: string[] | null; upstreamAction: string },
): Promise<string | undefined> {
  const rev = r.rev!;
  if (m.fastForward === false) {
    await repo.git(['reset', '--hard', rev]);
    ret.changes['forced update'] = true;
    if (m.localChanges) comments.push('Uncommitted changes were discarded');
    comments.push(`Repository was hard-reset to ${r.loc}`);
  } else if (m.fastForward === true && m.localChanges && w.forceReset !== false) {
    await repo.git(['checkout', '--', '.']);
    comments.push('Uncommitted changes were discarded');
  }
  if (m.upstreamOpts !== null) {
    await repo.git(['branch', ...m.upstreamOpts]);
    comments.push(m.upstreamAction);
  }
  if (m.fastForward === true && !revsEqual(m.baseRev, rev, r.type)) {
    if (r.upstream || w.rev === 'HEAD') {
      if (!(await repo.symbolicHead())) return 'Unable to fast-forward, HEAD is detached';
      await repo.git(['merge', '--ff-only', rev]);
      comments.push(`Repository was fast-forwarded to ${r.loc}`);
    } else {
      await repo.git(['reset', '--hard', w.rev === 'HEAD' ? rev : w.rev]);
      comments.push(`Repository was reset to ${w.rev} (fast-forward)`);
    }
  }
  if (w.submodules) {
    try {
      await repo.git(['submodule', 'update', '--init', '--recursive']);
    } catch (e) {
      if (!(e instanceof GitError)) throw e;
      return `Failed to update submodules: ${e.message}`;
    }
  }
  return undefined;
}

/** A test run's answer when the remote's URL is not the one asked for. */
function wouldChangeRemote(ret: Ret, w: Want, r: Remote, fetchUrl: string | null, f: Omit<Found, 'localBranches' | 'branchChange' | 'wouldTrack'>): Ret {
  const actions = [`Remote '${w.remote}' would be changed from ${fetchUrl} to ${w.name}`];
  if (!f.hasRemoteRev) actions.push('Remote would be fetched');
  if (!f.revsMatch && w.updateHead) {
    ret.changes.revision = { old: f.localRev, new: r.rev };
    if (f.fastForward === false) ret.changes['forced update'] = true;
    actions.push(`Repository would be ${f.mergeAction} to ${short(r.rev)}`);
  }
  if (Object.keys(ret.changes).length) return neutral(ret, joinComments(actions));
  if (!f.revsMatch && !w.updateHead) {
    ret.comment = joinComments(actions);
    return ret;
  }
  return upToDate(ret, w.target, true, actions);
}

/** Points the remote at the URL asked for (Salt removes and re-adds it). */
async function setRemote(repo: Repo, w: Want, ret: Ret, comments: string[], fetchUrl: string | null): Promise<void> {
  if (fetchUrl !== null) await repo.git(['remote', 'rm', w.remote]);
  await repo.git(['remote', 'add', w.remote, w.name]);
  if (fetchUrl === null) {
    comments.push(`Remote '${w.remote}' set to ${w.name}`);
    ret.changes.new = `${w.name} => ${w.remote}`;
  } else comments.push(`Remote '${w.remote}' changed from ${fetchUrl} to ${w.name}`);
}

/** Fetches the remote; a string is the failure Salt reports. */
async function fetchRemote(repo: Repo, w: Want, comments: string[]): Promise<string | undefined> {
  let fetched: boolean;
  try {
    fetched = await repo.fetch(w.remote, w.refspecs, w.forceFetch);
  } catch (e) {
    if (!(e instanceof GitError)) throw e;
    return `Fetch failed. Set 'force_fetch' to True to force the fetch if the failure was due to not being able to fast-forward. Output of the fetch command follows:\n\n${e.message}`;
  }
  if (fetched) comments.push(`${w.name} was fetched, resulting in updated refs`);
  return undefined;
}

/** Fetches a rev the clone lacks; the fast-forward verdict against it, or the result to return. */
async function fetchMissingRev(
  repo: Repo,
  w: Want,
  r: Remote,
  ret: Ret,
  comments: string[],
  l: { revsMatch: boolean; localBranch: string | null; baseRev: string | null; localChanges: boolean; headNotUpdated: () => string },
): Promise<boolean | Ret> {
  const fetchFailed = await fetchRemote(repo, w, comments);
  if (fetchFailed !== undefined) return fail(ret, fetchFailed, comments);
  if ((await repo.revParse(`${r.rev}^{commit}`)) === undefined) return fail(ret, `Fetch did not successfully retrieve rev '${w.rev}' from ${w.name}`);
  if (!l.revsMatch && !w.updateHead && (w.branch === undefined || w.branch === l.localBranch)) {
    ret.comment = l.headNotUpdated();
    return ret;
  }
  const fastForward = l.baseRev === null ? true : await repo.isAncestor(l.baseRev, r.rev!);
  if ((fastForward === false && w.forceReset === false) || (fastForward && l.localChanges && w.forceReset === false)) {
    return notFastForward(ret, w, l.baseRev, r.rev, l.localBranch, r, l.localChanges, comments);
  }
  return fastForward;
}

/** Checks out the branch asked for, creating it from the remote rev when it is new. */
async function checkoutBranch(repo: Repo, w: Want, r: Remote, comments: string[], localBranches: string[]): Promise<void> {
  const fresh = !localBranches.includes(w.branch!);
  const checkoutRev = fresh ? (w.rev === 'HEAD' ? r.rev! : r.upstream || w.rev) : w.branch!;
  await repo.git(['checkout', ...(w.forceCheckout ? ['--force'] : []), ...(fresh ? ['-b', w.branch!] : []), checkoutRev]);
  comments.push(fresh ? `New branch '${w.branch}' was checked out, with ${r.loc} as a starting point` : `'${checkoutRev}' was checked out`);
}

async function update(ctx: StateContext, ret: Ret, w: Want, r: Remote, g: GitOpts): Promise<Ret> {
  const repo = new Repo(ctx, w.target, g);
  const comments: string[] = [];
  const localBranches = await repo.refs('refs/heads/');
  const localTags = new Set(await repo.refs('refs/tags/'));
  const localRev = await repo.revision();
  const localBranch = await repo.currentBranch();
  if (r.rev === null && localRev !== null) return fail(ret, 'Remote repository is empty, cannot update from a non-empty to an empty repository');
  let baseRev = localRev;
  let baseBranch = localBranch;
  const branchChange = w.branch !== undefined && w.branch !== localBranch;
  if (branchChange) {
    if (!localBranches.includes(w.branch!)) baseRev = r.rev;
    else {
      baseBranch = w.branch!;
      const pos = await repo.revParse(`${w.branch}^{commit}`);
      if (pos === undefined) return fail(ret, `Unable to get position of local branch '${w.branch}'`, comments);
      baseRev = pos;
    }
  }
  const remotes = await repo.remotes();
  const revsMatch = revsEqual(localRev, r.rev, r.type);
  const localChanges = await repo.hasLocalChanges();
  if (localChanges && revsMatch) {
    if (w.forceReset === true) {
      const msg = `${w.target} is up-to-date, but with uncommitted changes. Since 'force_reset' is set to True, these local changes would be reset. To only reset when there are changes in the remote repository, set 'force_reset' to 'remote-changes'.`;
      if (ctx.test) {
        ret.changes['forced update'] = true;
        return neutral(ret, msg);
      }
    } else return upToDate(ret, w.target, ctx.test, comments, localChanges);
  }
  const present = await remoteRevPresent(repo, w, r, baseRev, remotes, localTags);
  if (typeof present === 'string') return fail(ret, present);
  let hasRemoteRev = present;
  let fastForward: boolean | null = localChanges && w.forceReset !== 'remote-changes' ? false : null;
  const headNotUpdated = () =>
    `${w.rev === 'HEAD' ? capital(r.loc ?? '') : r.loc} is already present and local HEAD (${(localRev ?? '').slice(0, 7)}) does not match, but update_head=False. HEAD has not been updated locally.`;
  if (hasRemoteRev) {
    if (!revsMatch && !w.updateHead && (w.branch === undefined || w.branch === localBranch)) {
      ret.comment = headNotUpdated();
      return ret;
    }
    if (fastForward !== false) fastForward = baseRev === null ? true : await repo.isAncestor(baseRev, r.rev!);
  }
  let mergeAction: string;
  if (fastForward === false) {
    if (w.forceReset === false) return notFastForward(ret, w, baseRev, r.rev, localBranch, r, localChanges, comments);
    mergeAction = 'hard-reset';
  } else mergeAction = fastForward === true ? 'fast-forwarded' : 'updated';
  const up = await upstreamAction(repo, w, baseBranch, r.upstream, localBranches);
  const fetchUrl = remotes[w.remote] ?? null;
  if (r.rev !== null && w.name !== fetchUrl) {
    if (ctx.test) return wouldChangeRemote(ret, w, r, fetchUrl, { localRev, revsMatch, hasRemoteRev, fastForward, mergeAction });
    await setRemote(repo, w, ret, comments, fetchUrl);
  }
  if (r.rev !== null) {
    if (ctx.test)
      return wouldUpdate(ret, w, r, { localRev, localBranches, branchChange, revsMatch, hasRemoteRev, fastForward, mergeAction, wouldTrack: up.would });
    if (up.opts !== null && localBranch === null) {
      return fail(
        ret,
        "Cannot set/unset upstream tracking branch, local HEAD refers to nonexistent branch. This may have been caused by cloning a remote repository for which the default branch was renamed or deleted. If you are unable to fix the remote repository, you can work around this by setting the 'branch' argument (which will ensure that the named branch is created if it does not already exist).",
        comments,
      );
    }
    if (await compareTags(repo, w, ret, comments, localTags)) hasRemoteRev = false;
    if (!hasRemoteRev) {
      const fetched = await fetchMissingRev(repo, w, r, ret, comments, { revsMatch, localBranch, baseRev, localChanges, headNotUpdated });
      if (typeof fetched !== 'boolean') return fetched;
      fastForward = fetched;
    }
    if (branchChange) {
      if (localChanges && !w.forceCheckout)
        return fail(ret, `Local branch '${localBranch}' has uncommitted changes. Set 'force_checkout' to True to discard them and proceed.`);
      await checkoutBranch(repo, w, r, comments, localBranches);
    }
    const failed = await moveHead(repo, w, r, ret, comments, { fastForward, localChanges, baseRev, upstreamOpts: up.opts, upstreamAction: up.action });
    if (failed !== undefined) return fail(ret, failed, comments);
  }
  const newRev = await repo.revision();
  if (!revsEqual(newRev, r.rev, r.type)) return fail(ret, 'Failed to update repository', comments);
  if (localRev !== newRev) {
    ret.comment = joinComments(comments);
    ret.changes.revision = { old: localRev, new: newRev };
    ret.new_state = { target: w.target, revision: newRev };
    return ret;
  }
  return upToDate(ret, w.target, false, comments);
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
