import path from 'node:path';
import { fileserverErrors } from './errors.js';

/** A saltenv mapped onto a ref of a remote (`gitfs_saltenv`, or a remote's `saltenv`). */
export interface SaltenvRef {
  ref?: string;
  root?: string;
  mountpoint?: string;
}

/** One git remote as configured (Salt's `gitfs_remotes` entry, or a git_pillar one). */
export interface GitRemoteSpec {
  url: string;
  /** The name it is shown and logged by (Salt's `name`; default: the URL without credentials). */
  name: string;
  /** The folder of the repository served (Salt's `root`; '' is the whole repository). */
  root: string;
  /** Where its files appear in the tree (`salt://` stripped; '' is the top). */
  mountpoint: string;
  /** The branch served as `base` (default `master`, or `main` when there is no `master`). */
  base?: string;
  sslVerify: boolean;
  saltenv: Record<string, SaltenvRef>;
  /** HTTPS user and the file holding its password or token (never the password itself). */
  user?: string;
  passwordFile?: string;
  /** An ssh private key for ssh:// and scp-like URLs. */
  privkey?: string;
  /** Only the saltenv mapping's envs, not every branch and tag (git_pillar: one branch, one env). */
  mappedOnly?: boolean;
}

/** Options that apply to every remote unless the remote says otherwise (Salt's `gitfs_*`). */
export interface GitDefaults {
  base?: string;
  root?: string;
  mountpoint?: string;
  sslVerify?: boolean;
  saltenv?: unknown;
}

/** A URL with any password in it replaced: what logs, statuses and errors show. */
export function redactGitUrl(text: string): string {
  return text.replace(/([a-z][a-z0-9+.-]*:\/\/[^/\s:@]*):[^@\s/]*@/gi, '$1:***@');
}

const hasPassword = (url: string) => /^[a-z][a-z0-9+.-]*:\/\/[^/\s:@]*:[^@\s/]*@/i.test(url);

const stripSalt = (m: string) => m.replace(/^salt:\/\//, '').replace(/^\/+|\/+$/g, '');
const cleanRoot = (r: string) => r.replace(/^\/+|\/+$/g, '');

/** `[{a: 1}, {b: 2}]` (Salt's per-remote list of one-key dicts) or `{a: 1, b: 2}`, as one object. */
function flat(v: unknown): Record<string, unknown> | undefined {
  if (Array.isArray(v)) {
    const out: Record<string, unknown> = {};
    for (const x of v) {
      if (typeof x !== 'object' || x === null || Array.isArray(x)) return undefined;
      Object.assign(out, x);
    }
    return out;
  }
  return typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : undefined;
}

/** `gitfs_saltenv` / a remote's `saltenv`: `[{dev: [{ref: develop}]}]` as `{dev: {ref: develop}}`. */
export function parseSaltenv(v: unknown, option: string): Record<string, SaltenvRef> {
  if (v === undefined || v === null) return {};
  const top = flat(v);
  if (!top) throw fileserverErrors.make('BRINE_ERR_FILESERVER_CONFIG', { option, detail: 'expected a list of {saltenv: [{ref: REF}]} entries' });
  const out: Record<string, SaltenvRef> = {};
  for (const [env, params] of Object.entries(top)) {
    const p = flat(params) ?? {};
    const ref: SaltenvRef = {};
    for (const k of ['ref', 'root', 'mountpoint'] as const) if (p[k] !== undefined) ref[k] = String(p[k]);
    out[env] = ref;
  }
  return out;
}

const PARAMS = new Set(['name', 'root', 'mountpoint', 'base', 'ssl_verify', 'saltenv', 'user', 'password_file', 'privkey', 'pubkey']);

/**
 * One entry of `gitfs_remotes` (a URL, or `{URL: [{param: value}, ...]}`). A password is taken
 * only from a file: one in the URL or as `password` is refused (configs get copied and shown).
 */
export function parseRemote(entry: unknown, d: GitDefaults, option: string, base: string): GitRemoteSpec {
  const fail = (detail: string) => fileserverErrors.make('BRINE_ERR_FILESERVER_CONFIG', { option, detail });
  let url: string;
  let p: Record<string, unknown> = {};
  if (typeof entry === 'string') url = entry;
  else {
    const o = flat(entry);
    const keys = o ? Object.keys(o) : [];
    if (!o || keys.length !== 1) throw fail(`each remote is a URL or {URL: [params]}, got ${JSON.stringify(entry)}`);
    url = keys[0]!;
    p = flat(o[url]) ?? {};
  }
  url = url.trim();
  if (hasPassword(url)) throw fail(`remote ${redactGitUrl(url)} has a password in its URL; put it in a file and name it with password_file`);
  if ('password' in p) throw fail(`remote ${redactGitUrl(url)}: 'password' is refused; put the password in a file and name it with password_file`);
  for (const k of Object.keys(p)) if (!PARAMS.has(k)) throw fail(`remote ${redactGitUrl(url)}: unknown parameter '${k}' (known: ${[...PARAMS].join(', ')})`);
  const str = (k: string) => (p[k] === undefined || p[k] === null ? undefined : String(p[k]));
  const abs = (f: string | undefined) => (f === undefined ? undefined : path.resolve(base, f));
  const spec: GitRemoteSpec = {
    url,
    name: str('name') ?? redactGitUrl(url),
    root: cleanRoot(str('root') ?? d.root ?? ''),
    mountpoint: stripSalt(str('mountpoint') ?? d.mountpoint ?? ''),
    sslVerify: p.ssl_verify === undefined ? (d.sslVerify ?? true) : p.ssl_verify !== false && p.ssl_verify !== 'False' && p.ssl_verify !== 'false',
    saltenv: { ...parseSaltenv(d.saltenv, option), ...parseSaltenv(p.saltenv, `${option} ${redactGitUrl(url)} saltenv`) },
  };
  const b = str('base') ?? d.base;
  if (b !== undefined) spec.base = b;
  const user = str('user');
  if (user !== undefined) spec.user = user;
  const pw = abs(str('password_file'));
  if (pw !== undefined) spec.passwordFile = pw;
  const key = abs(str('privkey'));
  if (key !== undefined) spec.privkey = key;
  return spec;
}

/** A remote entry with its file params (password_file, privkey) made absolute by `abs` (the config file's folder). */
export function absRemotePaths(entry: unknown, abs: (p: string) => string): unknown {
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return entry;
  const [url, params] = Object.entries(entry)[0] ?? [];
  if (url === undefined || !Array.isArray(params)) return entry;
  const fix = (p: unknown) => {
    if (typeof p !== 'object' || p === null) return p;
    const o = { ...(p as Record<string, unknown>) };
    for (const k of ['password_file', 'privkey', 'pubkey']) if (typeof o[k] === 'string') o[k] = abs(o[k]);
    return o;
  };
  return { [url]: params.map(fix) };
}
