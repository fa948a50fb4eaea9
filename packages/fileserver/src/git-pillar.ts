import { fileserverErrors } from './errors.js';
import { GitRemote, type RemoteStatus } from './git-remote.js';
import { parseRemote, type GitDefaults, type GitRemoteSpec } from './git-remote-spec.js';
import { JobSnapshots } from './job-snapshots.js';
import { coalesced } from './coalesce.js';
import type { TreeSnapshot } from './snapshot.js';

/** One git_pillar source: a branch of a remote, served as one pillar env. */
export interface GitPillarSpec {
  remote: GitRemoteSpec;
  branch: string;
  env: string;
}

/**
 * The `git` entries of `ext_pillar` in Salt's syntax: `- master https://host/pillar.git` or
 * `- dev https://host/pillar.git: [{env: dev}, {root: pillar}, ...]`. The branch named by
 * `git_pillar_base` (default master) is env base, another branch an env of its own name.
 */
export function parseGitPillar(entries: unknown, d: GitDefaults & { pillarBase?: string }, base: string): GitPillarSpec[] {
  const option = 'ext_pillar git';
  const fail = (detail: string) => fileserverErrors.make('BRINE_ERR_FILESERVER_CONFIG', { option, detail });
  if (!Array.isArray(entries)) throw fail('expected a list of "BRANCH URL" entries');
  return entries.map((entry) => {
    let head: string;
    let params: Array<Record<string, unknown>> = [];
    if (typeof entry === 'string') head = entry;
    else if (typeof entry === 'object' && entry !== null && !Array.isArray(entry) && Object.keys(entry).length === 1) {
      head = Object.keys(entry)[0]!;
      const p = (entry as Record<string, unknown>)[head];
      params = Array.isArray(p) ? (p as Array<Record<string, unknown>>) : p && typeof p === 'object' ? [p as Record<string, unknown>] : [];
    } else throw fail(`each entry is "BRANCH URL" or {"BRANCH URL": [params]}, got ${JSON.stringify(entry)}`);
    const [branch, url, extra] = head.trim().split(/\s+/);
    if (!branch || !url || extra !== undefined) throw fail(`"${head}" is not "BRANCH URL"`);
    if (branch === '__env__') throw fail(`branch __env__ (one env per branch on demand) is not supported; name the branches`);
    const flat = Object.assign({}, ...params) as Record<string, unknown>;
    const { env: envParam, ...rest } = flat;
    const remote = parseRemote({ [url]: Object.entries(rest).map(([k, v]) => ({ [k]: v })) }, { ...d, saltenv: undefined }, option, base);
    const env = envParam !== undefined ? String(envParam) : branch === (d.pillarBase ?? 'master') ? 'base' : branch;
    remote.saltenv = { [env]: { ref: branch } };
    remote.mappedOnly = true;
    if (remote.name === url) remote.name = `${branch} ${remote.name}`;
    return { remote, branch, env };
  });
}

/**
 * git_pillar: each source a pillar tree of its own (one env, the branch's files, its own top
 * file), compiled on its own and merged over the pillar roots' pillar in order, as Salt does.
 * Remotes are fetched as gitfs's are; a failed fetch keeps the last good commit.
 */
export class GitPillar {
  readonly remotes: GitRemote[];
  private readonly onFailure: (s: RemoteStatus) => void;
  private latest?: TreeSnapshot[];
  private readonly jobs = new JobSnapshots<TreeSnapshot[]>();

  constructor(specs: GitPillarSpec[], o: { cacheDir: string; timeout?: number; onFailure?: (s: RemoteStatus) => void }) {
    this.remotes = specs.map((s, i) => new GitRemote(s.remote, o.cacheDir, o.timeout ?? 120, i));
    this.onFailure = o.onFailure ?? (() => {});
  }

  /** Fetches every source and rebuilds their trees (as GitFs.update: one at a time, callers meanwhile share the next). */
  readonly update: () => Promise<RemoteStatus[]> = coalesced(() => this.fetchAll());

  private async fetchAll(): Promise<RemoteStatus[]> {
    const snaps: TreeSnapshot[] = [];
    for (const r of this.remotes) {
      if ((await r.update()) !== undefined) this.onFailure(r.status());
      snaps.push(await r.snapshot());
    }
    this.latest = snaps;
    return this.status();
  }

  status(): RemoteStatus[] {
    return this.remotes.map((r) => r.status());
  }

  /** The sources' trees as of the last update (the first, if none ended yet). */
  async current(): Promise<TreeSnapshot[]> {
    if (!this.latest) await this.update();
    return this.latest!;
  }

  /** The trees job `key` started with, for all its minions. */
  forJob(key: string): Promise<TreeSnapshot[]> {
    return this.jobs.forJob(key, () => this.current());
  }
}
