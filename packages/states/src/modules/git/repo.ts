import type { StateContext } from '@brine/core';
import { gitError, runGit } from './run-git.js';

/** The git queries and actions git.latest needs, each one git command as Salt's git module runs it. */

export class GitError extends Error {}

export interface GitOpts {
  user?: string;
  env?: Record<string, string>;
}

export class Repo {
  private readonly ctx: StateContext;
  readonly dir: string;
  private readonly opts: GitOpts;
  constructor(ctx: StateContext, dir: string, opts: GitOpts) {
    this.ctx = ctx;
    this.dir = dir;
    this.opts = opts;
  }

  /** Runs git in the repository; throws GitError with git's message when it fails. */
  async git(args: string[]): Promise<string> {
    const r = await runGit(this.ctx, args, { cwd: this.dir, user: this.opts.user, env: this.opts.env });
    if (r.retcode !== 0) throw new GitError(gitError(r));
    return r.stdout;
  }

  /** Like git() but undefined instead of an error. */
  async tryGit(args: string[]): Promise<string | undefined> {
    try {
      return await this.git(args);
    } catch (e) {
      if (e instanceof GitError) return undefined;
      throw e;
    }
  }

  async revision(): Promise<string | null> {
    return (await this.tryGit(['rev-parse', 'HEAD']))?.trim() ?? null;
  }

  async currentBranch(): Promise<string | null> {
    return (await this.tryGit(['rev-parse', '--abbrev-ref', 'HEAD']))?.trim() ?? null;
  }

  async refs(prefix: 'refs/heads/' | 'refs/tags/'): Promise<string[]> {
    const out = await this.git(['for-each-ref', '--format', '%(refname:short)', prefix]);
    return out.split('\n').filter(Boolean);
  }

  async revParse(rev: string, opts: string[] = []): Promise<string | undefined> {
    return (await this.tryGit(['rev-parse', ...opts, rev]))?.trim();
  }

  /** Remote name -> fetch URL. */
  async remotes(): Promise<Record<string, string>> {
    const out: Record<string, string> = {};
    for (const line of (await this.git(['remote', '--verbose'])).split('\n')) {
      const m = /^(\S+)\s+(\S+)\s+\(fetch\)$/.exec(line.trim());
      if (m) out[m[1]!] = m[2]!;
    }
    return out;
  }

  async hasLocalChanges(): Promise<boolean> {
    const out = await this.tryGit(['diff', 'HEAD']);
    return Boolean(out?.trim());
  }

  async isAncestor(a: string, b: string): Promise<boolean> {
    const r = await runGit(this.ctx, ['merge-base', '--is-ancestor', a, b], { cwd: this.dir, user: this.opts.user, env: this.opts.env });
    return r.retcode === 0;
  }

  /** Fetches; true when refs were updated (git reports them on stderr). */
  async fetch(remote: string, refspecs: string[], force: boolean): Promise<boolean> {
    const r = await runGit(this.ctx, ['fetch', ...(force ? ['--force'] : []), remote, ...refspecs], {
      cwd: this.dir,
      user: this.opts.user,
      env: this.opts.env,
    });
    if (r.retcode !== 0) throw new GitError(gitError(r));
    return /^\s*(?:[+\-t*!= ]\s)?\s*(?:\[new [^\]]+\]|[0-9a-f]+\.\.\.?[0-9a-f]+|\[deleted\])\s+\S+\s+->/m.test(`${r.stderr}\n${r.stdout}`);
  }

  async remoteTags(remote: string): Promise<Set<string>> {
    const out = (await this.tryGit(['ls-remote', '--tags', remote])) ?? '';
    const tags = new Set<string>();
    for (const line of out.split('\n')) {
      const ref = line.split('\t')[1];
      if (ref && !ref.includes('^{}')) tags.add(ref.replace(/^refs\/tags\//, ''));
    }
    return tags;
  }

  async symbolicHead(): Promise<boolean> {
    return (await this.tryGit(['symbolic-ref', '--quiet', 'HEAD'])) !== undefined;
  }
}

/** `git ls-remote URL`: ref name -> sha (Salt's git.remote_refs). */
export async function remoteRefs(ctx: StateContext, url: string, opts: GitOpts): Promise<Record<string, string>> {
  const r = await runGit(ctx, ['ls-remote', url], { user: opts.user, env: opts.env });
  if (r.retcode !== 0) throw new GitError(gitError(r));
  const refs: Record<string, string> = {};
  for (const line of r.stdout.split('\n')) {
    const [sha, ref] = line.split('\t');
    if (sha && ref) refs[ref] = sha;
  }
  return refs;
}
