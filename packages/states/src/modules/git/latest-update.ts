import type { StateContext } from '@brine/core';
import { GitError, Repo, type GitOpts } from './repo.js';
import { fail, joinComments, neutral, short, upToDate, type Ret } from './latest-ret.js';
import { revsEqual, type Remote, type Want } from './latest-want.js';

/** git.latest on an existing checkout: fetch what is missing, then bring the checkout to the remote rev (or say what a test run would do). */

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

const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** Which `git branch` options set or unset the upstream, and the comment for it. */
export async function upstreamAction(repo: Repo, w: Want, baseBranch: string | null, desired: string | null | false, localBranches: string[]) {
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

export async function update(ctx: StateContext, ret: Ret, w: Want, r: Remote, g: GitOpts): Promise<Ret> {
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
