import path from 'node:path';
import type { Logger } from '@brine/core';
import { FileRoots, FileTrees, GitFs, GitPillar, parseGitPillar, parseRemote, type RemoteStatus, type TreeBackend, type TreeSnapshot } from '@brine/fileserver';
import type { MasterConfig } from './config.js';
import { masterErrors } from './errors.js';
import { extPillarEntries } from './ext-pillar/ext-pillar-plan.js';

/** The state tree's backends as configured, and gitfs among them (to update and ask the status of). */
export interface FileBackends {
  files: TreeBackend;
  gitfs?: GitFs;
}

/** Logged once per failed fetch: the remote keeps serving the commits it was at. */
export function logFetchFailure(log: Logger, kind: string) {
  return (s: RemoteStatus) =>
    log.warn(
      { event: 'gitfs_fetch_failed', kind, remote: s.name, url: s.url, serving: s.envs },
      `${kind} remote '${s.name}' failed to fetch; serving its last good commits: ${s.error ?? ''}`,
    );
}

/** Logged for a file a root would serve through a symlink that points out of that root (`what`: file_roots, pillar_roots). */
export function logEscape(log: Logger, what: string) {
  return (env: string, file: string, target: string) =>
    log.warn({ event: 'file_refused', env, path: file, target, roots: what }, 'symlink points out of its root; it is not served');
}

/** A job's snapshot of `roots`, or the tree as it is now outside a job (walked off the event loop). */
export function treeOf(roots: TreeBackend, jid: string | undefined): Promise<TreeSnapshot> {
  return jid === undefined ? roots.fresh() : roots.forJob(jid);
}

/**
 * `fileserver_backend` in order (Salt's precedence: the first backend holding a path serves it):
 * `roots` (file_roots) and `gitfs` (gitfs_remotes, mirrored under <data_dir>/gitfs).
 */
export function fileBackends(config: MasterConfig, log: Logger, roots: FileRoots): FileBackends {
  const out: TreeBackend[] = [];
  let gitfs: GitFs | undefined;
  for (const name of config.fileserver_backend) {
    if (name === 'roots' || name === 'root') out.push(roots);
    else if (name === 'gitfs' || name === 'git') {
      const defaults = {
        ...(config.gitfs_base !== null ? { base: config.gitfs_base } : {}),
        root: config.gitfs_root,
        mountpoint: config.gitfs_mountpoint,
        sslVerify: config.gitfs_ssl_verify,
        saltenv: config.gitfs_saltenv,
      };
      const specs = config.gitfs_remotes.map((e) => parseRemote(e, defaults, 'gitfs_remotes', config.data_dir));
      gitfs = new GitFs(specs, { cacheDir: path.join(config.data_dir, 'gitfs'), envOrder: config.env_order, onFailure: logFetchFailure(log, 'gitfs') });
      out.push(gitfs);
    } else {
      throw masterErrors.make('BRINE_ERR_MASTER_CONFIG', { file: '-', detail: `fileserver_backend: unknown backend '${name}' (known: roots, gitfs)` });
    }
  }
  if (out.length === 0) throw masterErrors.make('BRINE_ERR_MASTER_CONFIG', { file: '-', detail: 'fileserver_backend names no backend (roots, gitfs)' });
  const files = out.length === 1 ? out[0]! : new FileTrees(out, config.env_order);
  return { files, ...(gitfs ? { gitfs } : {}) };
}

/**
 * The `git` sources of `ext_pillar` (mirrored under <data_dir>/git_pillar), or undefined without
 * any; `counts` gets the number of sources of each `git` entry (the other kinds are the ext
 * pillar plan's, which checks them).
 */
export function gitPillar(config: MasterConfig, log: Logger, counts: number[] = []): GitPillar | undefined {
  const specs = [];
  for (const [kind, value] of extPillarEntries(config)) {
    if (kind !== 'git') continue;
    const more = parseGitPillar(value, { sslVerify: config.gitfs_ssl_verify }, config.data_dir);
    counts.push(more.length);
    specs.push(...more);
  }
  if (specs.length === 0) return undefined;
  return new GitPillar(specs, { cacheDir: path.join(config.data_dir, 'git_pillar'), onFailure: logFetchFailure(log, 'git_pillar') });
}
