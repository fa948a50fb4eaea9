import { createHash } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { servedTreeName } from '@brine/core';
import { fileserverErrors } from './errors.js';
import { redactGitUrl, type GitRemoteSpec } from './git-remote-spec.js';
import { runGit, type GitOutput } from './git.js';
import { buildSnapshot, type RootFile, type TreeSnapshot } from './snapshot.js';

/** A blob's bytes and their sha256 (what minions compare). Blobs never change: kept by object id. */
interface Blob {
  data: Buffer;
  hash: string;
}

/** What `status` says of one remote. */
export interface RemoteStatus {
  name: string;
  url: string;
  /** The last fetch worked (or none was tried yet). */
  ok: boolean;
  error?: string;
  /** ISO times of the last fetch tried and the last that worked. */
  lastFetch?: string;
  lastGood?: string;
  /** The commit each saltenv is served from. */
  envs: Record<string, string>;
}

/** One remote's files, per saltenv: what the snapshot is built from. */
export type RemoteFiles = Map<string, Map<string, RootFile>>;

/** Shell-quoted for a `GIT_SSH_COMMAND` / credential helper line. */
const sq = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * A git remote served from a bare mirror under the cache dir: `update` fetches it (a child
 * process with a timeout), the saltenvs are read off the mirror's refs, and files come out of
 * commits (`ls-tree`, `cat-file --batch`), so a snapshot is one commit per saltenv whatever is
 * pushed meanwhile. A fetch that fails leaves the mirror's refs as they were: the last good
 * commits go on being served.
 */
export class GitRemote {
  readonly spec: GitRemoteSpec;
  readonly dir: string;
  private readonly timeout: number;
  private readonly blobs = new Map<string, Blob>();
  private listings = new Map<string, Map<string, { oid: string; size: number }>>();
  envs = new Map<string, string>();
  private error: string | undefined;
  private lastFetch: number | undefined;
  private lastGood: number | undefined;
  private built: { at: string; snap: TreeSnapshot } | undefined;

  /** `slot` tells apart remotes of one URL (other roots or branches): each has its own mirror, fetched on its own. */
  constructor(spec: GitRemoteSpec, cacheDir: string, timeout: number, slot = 0) {
    this.spec = spec;
    this.timeout = timeout;
    this.dir = path.join(cacheDir, `${slot}-${createHash('sha256').update(spec.url).digest('hex').slice(0, 20)}`);
  }

  get failing(): boolean {
    return this.error !== undefined;
  }

  status(): RemoteStatus {
    const iso = (t: number | undefined) => (t === undefined ? undefined : new Date(t).toISOString());
    const s: RemoteStatus = { name: this.spec.name, url: redactGitUrl(this.spec.url), ok: this.error === undefined, envs: Object.fromEntries(this.envs) };
    if (this.error !== undefined) s.error = this.error;
    const f = iso(this.lastFetch);
    if (f) s.lastFetch = f;
    const g = iso(this.lastGood);
    if (g) s.lastGood = g;
    return s;
  }

  /** Credentials for git, from files only: a helper that cats the password file, an ssh key path. */
  private authEnv(): Record<string, string> {
    const env: Record<string, string> = {};
    const cfg: Array<[string, string]> = [];
    if (!this.spec.sslVerify) cfg.push(['http.sslVerify', 'false']);
    if (this.spec.passwordFile) {
      const user = this.spec.user ? `echo username=${sq(this.spec.user)}; ` : '';
      cfg.push(['credential.helper', `!f() { test "$1" = get || exit 0; ${user}printf 'password=%s\\n' "$(cat ${sq(this.spec.passwordFile)})"; }; f`]);
    }
    if (this.spec.privkey) env.GIT_SSH_COMMAND = `ssh -i ${sq(this.spec.privkey)} -o IdentitiesOnly=yes -o BatchMode=yes`;
    cfg.forEach(([k, v], i) => {
      env[`GIT_CONFIG_KEY_${i}`] = k;
      env[`GIT_CONFIG_VALUE_${i}`] = v;
    });
    if (cfg.length) env.GIT_CONFIG_COUNT = String(cfg.length);
    return env;
  }

  private async git(what: string, args: string[], input?: string, env?: Record<string, string>): Promise<GitOutput> {
    const out = await runGit(args, { cwd: this.dir, timeout: this.timeout, ...(input !== undefined ? { input } : {}), ...(env ? { env } : {}) });
    if (out.timedOut) throw fileserverErrors.make('BRINE_ERR_FILESERVER_GIT_TIMEOUT', { what, remote: this.spec.name, seconds: this.timeout });
    if (out.code !== 0) {
      const detail = redactGitUrl(out.stderr.trim().split('\n').slice(-3).join(' / ')) || `exit code ${out.code}`;
      throw fileserverErrors.make('BRINE_ERR_FILESERVER_GIT', { what, remote: this.spec.name, detail });
    }
    return out;
  }

  /**
   * Fetches the remote into its mirror, then reads which commit each saltenv is at. Returns the
   * fetch's error (the saltenvs then stay at the mirror's last good refs), or undefined.
   */
  async update(): Promise<string | undefined> {
    this.lastFetch = Date.now();
    try {
      await mkdir(this.dir, { recursive: true, mode: 0o700 });
      await runGit(['init', '--bare', '--quiet', this.dir], { timeout: this.timeout });
      await this.git(
        'fetch',
        ['fetch', '--prune', '--quiet', '--no-tags', this.spec.url, '+refs/heads/*:refs/heads/*', '+refs/tags/*:refs/tags/*'],
        undefined,
        this.authEnv(),
      );
      this.error = undefined;
      this.lastGood = this.lastFetch;
    } catch (e) {
      this.error = redactGitUrl((e as Error).message);
    }
    await this.readRefs();
    return this.error;
  }

  /** Saltenvs from the mirror's branches and tags: the base branch as `base`, gitfs_saltenv's mapping over them. */
  private async readRefs(): Promise<void> {
    let text = '';
    try {
      text = (
        await this.git('for-each-ref', ['for-each-ref', '--format=%(refname)%00%(objectname)%00%(*objectname)', 'refs/heads', 'refs/tags'])
      ).stdout.toString();
    } catch (e) {
      this.error ??= (e as Error).message;
    }
    const branches = new Map<string, string>();
    const tags = new Map<string, string>();
    for (const line of text.split('\n')) {
      const [ref, oid, peeled] = line.split('\0');
      if (!ref || !oid) continue;
      if (ref.startsWith('refs/heads/')) branches.set(ref.slice(11), oid);
      else if (ref.startsWith('refs/tags/')) tags.set(ref.slice(10), peeled || oid);
    }
    const base = this.spec.base ?? (!branches.has('master') && branches.has('main') ? 'main' : 'master');
    const envs = new Map<string, string>();
    if (!this.spec.mappedOnly) {
      for (const [name, oid] of tags) envs.set(name, oid);
      for (const [name, oid] of branches) if (name !== base) envs.set(name, oid);
      const baseOid = branches.get(base) ?? tags.get(base);
      if (baseOid) envs.set('base', baseOid);
    }
    for (const [env, m] of Object.entries(this.spec.saltenv)) {
      const ref = m.ref ?? (env === 'base' ? base : env);
      const oid = branches.get(ref) ?? tags.get(ref) ?? (/^[0-9a-f]{40}$/.test(ref) ? ref : undefined);
      if (oid) envs.set(env, oid);
    }
    this.envs = envs;
  }

  /** The root and mountpoint an env is served with (a saltenv mapping may set its own). */
  private layout(env: string): { root: string; mountpoint: string } {
    const m = this.spec.saltenv[env];
    const clean = (s: string) => s.replace(/^salt:\/\//, '').replace(/^\/+|\/+$/g, '');
    return { root: clean(m?.root ?? this.spec.root), mountpoint: clean(m?.mountpoint ?? this.spec.mountpoint) };
  }

  /** The files of one commit under `root`: path (relative to root) -> blob id and size. */
  private async listing(commit: string, root: string): Promise<Map<string, { oid: string; size: number }>> {
    const key = `${commit}:${root}`;
    const kept = this.listings.get(key);
    if (kept) return kept;
    const out = new Map<string, { oid: string; size: number }>();
    let raw: Buffer;
    try {
      raw = (await this.git('ls-tree', ['ls-tree', '-r', '-z', '-l', root ? `${commit}:${root}` : `${commit}^{tree}`])).stdout;
    } catch {
      // the root is not in this commit: the env has no files from this remote
      return out;
    }
    for (const entry of raw.toString('utf8').split('\0')) {
      const tab = entry.indexOf('\t');
      if (tab < 0) continue;
      const [mode, type, oid, size] = entry.slice(0, tab).split(/ +/);
      const rel = entry.slice(tab + 1);
      // symlinks and submodules are not served (a link's target could name anything)
      if (type !== 'blob' || mode === '120000' || !oid) continue;
      if (!rel.split('/').every(servedTreeName)) continue;
      out.set(rel, { oid, size: Number(size) });
    }
    this.listings.set(key, out);
    return out;
  }

  /** Reads the blobs not held yet, in one `cat-file --batch`. */
  private async loadBlobs(oids: string[]): Promise<void> {
    const want = [...new Set(oids.filter((o) => !this.blobs.has(o)))];
    if (want.length === 0) return;
    const out = (await this.git('cat-file', ['cat-file', '--batch'], want.join('\n') + '\n')).stdout;
    let at = 0;
    while (at < out.length) {
      const nl = out.indexOf(10, at);
      if (nl < 0) break;
      const [oid, type, size] = out.subarray(at, nl).toString('utf8').split(' ');
      if (type === 'missing' || size === undefined) {
        at = nl + 1;
        continue;
      }
      const n = Number(size);
      const data = Buffer.from(out.subarray(nl + 1, nl + 1 + n));
      this.blobs.set(oid!, { data, hash: createHash('sha256').update(data).digest('hex') });
      at = nl + 1 + n + 1;
    }
  }

  /** The tree at the current commits (the same object while no env moved). */
  async snapshot(): Promise<TreeSnapshot> {
    const at = JSON.stringify([...this.envs]);
    if (this.built?.at === at) return this.built.snap;
    const { files, data } = await this.files();
    this.built = { at, snap: buildSnapshot(files, data) };
    return this.built.snap;
  }

  /** The files per saltenv at the current commits, and a reader of their bytes. */
  private async files(): Promise<{ files: RemoteFiles; data: (f: RootFile) => Buffer | undefined }> {
    const files: RemoteFiles = new Map();
    const byAbs = new Map<string, Buffer>();
    const used = new Set<string>();
    for (const [env, commit] of this.envs) {
      const { root, mountpoint } = this.layout(env);
      const list = await this.listing(commit, root);
      await this.loadBlobs([...list.values()].map((l) => l.oid));
      const map = new Map<string, RootFile>();
      for (const [rel, l] of list) {
        const blob = this.blobs.get(l.oid);
        if (!blob) continue;
        used.add(l.oid);
        const served = mountpoint ? `${mountpoint}/${rel}` : rel;
        const abs = `${this.spec.name}@${commit.slice(0, 12)}:${root ? `${root}/` : ''}${rel}`;
        map.set(served, { abs, size: blob.data.length, mtimeMs: 0, hash: blob.hash });
        byAbs.set(abs, blob.data);
      }
      files.set(env, map);
    }
    // blobs no env serves any more are dropped (a snapshot holds its own references)
    for (const oid of this.blobs.keys()) if (!used.has(oid)) this.blobs.delete(oid);
    const live = new Set([...this.envs].map(([env, c]) => `${c}:${this.layout(env).root}`));
    for (const k of this.listings.keys()) if (!live.has(k)) this.listings.delete(k);
    return { files, data: (f) => byAbs.get(f.abs) };
  }
}
