import { createHash } from 'node:crypto';
import { appendFileSync, chmodSync, chownSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import type { CommandRunner } from '@brine/core';

/**
 * The known_hosts operations of Salt's `ssh` execution module (get_known_host_entries,
 * check_known_host, set_known_host, rm_known_host, hash_known_hosts), through ssh-keygen and
 * ssh-keyscan as Salt runs them.
 */

export class SshError extends Error {}

/** The colon-separated digest of the key's bytes; null when the key is not strict base64. */
export function fingerprint(key: string, hashType?: string | null): string | null {
  const algo = (hashType || 'sha256').toLowerCase();
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(key) || key.length % 4 !== 0) return null;
  let digest: string;
  try {
    digest = createHash(algo).update(Buffer.from(key, 'base64')).digest('hex');
  } catch {
    throw new SshError(`The fingerprint_hash_type ${algo} is not supported.`);
  }
  return digest.match(/../g)!.join(':');
}

export interface KnownHost {
  hostname: string;
  key: string;
  enc: string;
  fingerprint: string;
}

export interface KnownHostsHost {
  cmd: CommandRunner;
  /** A user's home directory and ids, for a config relative to it (Salt's user.info). */
  userInfo?: (user: string) => Promise<{ home: string; uid: number; gid: number } | undefined>;
}

const DEFAULT_PORT = 22;
/** Salt's {status: 'error', error: ...} answers. */
export type KnownHostsError = { status: 'error'; error: string };

export async function knownHostsFile(h: KnownHostsHost, config: string | undefined, user: string | undefined): Promise<string | KnownHostsError> {
  const file = config || (user ? '.ssh/known_hosts' : '/etc/ssh/ssh_known_hosts');
  if (isAbsolute(file)) return file;
  if (!user) return { status: 'error', error: 'Cannot determine absolute path to file.' };
  const info = await h.userInfo?.(user);
  if (!info) return { status: 'error', error: `User ${user} does not exist` };
  return join(info.home, file);
}

const sshHostname = (hostname: string, port?: number | null) => (!port || port === DEFAULT_PORT ? hostname : `[${hostname}]:${port}`);
const shq = (s: string) => `'${s.replace(/'/g, "'\\''")}'`;

/** Salt's cmd.run: stdout and stderr through one pipe, as the command wrote them. */
async function run(h: KnownHostsHost, argv: string[]): Promise<string> {
  const r = await h.cmd.run(`${argv.map(shq).join(' ')} 2>&1`);
  return r.stdout.replace(/\n+$/, '');
}

function parseEntries(lines: string[], hashType?: string | null): KnownHost[] {
  const out: KnownHost[] = [];
  for (const raw of lines) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const parts = line.split(/\s+/);
    if (parts.length !== 3) continue;
    const [hostname, enc, key] = parts as [string, string, string];
    const fp = fingerprint(key, hashType);
    if (fp) out.push({ hostname, key, enc, fingerprint: fp });
  }
  return out;
}

export async function knownHostEntries(
  h: KnownHostsHost,
  user: string | undefined,
  hostname: string,
  config?: string,
  port?: number | null,
  hashType?: string | null,
): Promise<KnownHost[] | null | KnownHostsError> {
  const full = await knownHostsFile(h, config, user);
  if (typeof full !== 'string') return full;
  const entries = parseEntries((await run(h, ['ssh-keygen', '-F', sshHostname(hostname, port), '-f', full])).split('\n'), hashType);
  return entries.length ? entries : null;
}

export async function checkKnownHost(
  h: KnownHostsHost,
  a: { user?: string; hostname: string; key?: string; fingerprint?: string; config?: string; port?: number | null; hashType?: string | null },
): Promise<'add' | 'update' | 'exists' | KnownHostsError> {
  const entries = await knownHostEntries(h, a.user, a.hostname, a.config || (a.user ? '.ssh/known_hosts' : '/etc/ssh/ssh_known_hosts'), a.port, a.hashType);
  if (entries && !Array.isArray(entries)) return entries;
  if (!entries) return 'add';
  if (a.key) return entries.some((e) => e.key === a.key) ? 'exists' : 'update';
  if (a.fingerprint) return entries.some((e) => e.fingerprint === a.fingerprint) ? 'exists' : 'update';
  return 'exists';
}

async function keyscan(
  h: KnownHostsHost,
  hostname: string,
  enc: string | undefined,
  port: number | null | undefined,
  hash: boolean,
  timeout: number,
  hashType?: string | null,
): Promise<KnownHost[] | null> {
  const argv = ['ssh-keyscan', ...(port ? ['-p', String(port)] : []), ...(enc ? ['-t', enc] : []), ...(hash ? ['-H'] : []), '-T', String(timeout), hostname];
  let lines: string[] = [];
  // Salt tries five times while the scan prints nothing
  for (let attempt = 0; attempt < 5 && lines.length === 0; attempt++) lines = (await run(h, argv)).split('\n').filter((l) => l !== '');
  const entries = parseEntries(lines, hashType);
  return entries.length ? entries : null;
}

export type SetKnownHostResult =
  { status: 'exists'; keys: string[] } | { status: 'updated'; old: KnownHost[] | null; new: Array<Partial<KnownHost>> } | KnownHostsError;

export async function setKnownHost(
  h: KnownHostsHost,
  a: {
    user?: string;
    hostname: string;
    fingerprint?: string;
    key?: string;
    port?: number | null;
    enc?: string;
    config?: string;
    hashKnownHosts: boolean;
    timeout: number;
    hashType?: string | null;
  },
): Promise<SetKnownHostResult> {
  if (a.port !== undefined && a.port !== null && a.port !== DEFAULT_PORT && a.hashKnownHosts) {
    return { status: 'error', error: 'argument port can not be used in conjunction with argument hash_known_hosts' };
  }
  const stored = await knownHostEntries(h, a.user, a.hostname, a.config, a.port, a.hashType);
  if (stored && !Array.isArray(stored)) return stored;
  const storedKeys = stored ? stored.filter((e) => a.enc === undefined || e.enc === a.enc).map((e) => e.key) : [];
  const storedFps = stored ? stored.map((e) => e.fingerprint) : [];
  let update = false;
  let check = false;
  if (!stored) update = true;
  else if (a.fingerprint && !storedFps.includes(a.fingerprint)) update = true;
  else if (a.key && !storedKeys.includes(a.key)) update = true;
  else if (a.key === undefined && a.fingerprint === undefined) check = true;
  if (!update && !check) return { status: 'exists', keys: storedKeys };
  let entries: Array<Partial<KnownHost>>;
  if (!a.key) {
    const remote = await keyscan(h, a.hostname, a.enc, a.port, a.hashKnownHosts, a.timeout, a.hashType);
    if (!remote) return { status: 'error', error: 'Unable to receive remote host keys' };
    if (a.fingerprint && !remote.some((e) => e.fingerprint === a.fingerprint)) {
      return { status: 'error', error: 'Remote host public keys found but none of their fingerprints match the one you have provided' };
    }
    if (check && new Set(remote.map((e) => e.key)).size === new Set(storedKeys).size && remote.every((e) => storedKeys.includes(e.key))) {
      return { status: 'exists', keys: storedKeys };
    }
    entries = remote;
  } else {
    entries = [{ hostname: a.hostname, enc: a.enc, key: a.key }];
  }
  const full = await knownHostsFile(h, a.config, a.user);
  if (typeof full !== 'string') return full;
  let origMode: number | undefined;
  if (existsSync(full) && statSync(full).isFile()) {
    origMode = statSync(full).mode & 0o7777;
    const found = (await run(h, ['ssh-keygen', '-F', sshHostname(a.hostname, a.port), '-f', full])).split('\n');
    // ssh-keygen -F prints "# Host x found: line N" before each matching line
    const remove = new Set<number>();
    for (let i = 0; i + 1 < found.length; i += 2) {
      const lineNo = Number(found[i]!.trim().split(/\s+/).pop());
      const enc = found[i + 1]!.trim().split(/\s+/).slice(-2)[0];
      if (a.enc === undefined || enc === a.enc) remove.add(lineNo);
    }
    if (remove.size) {
      const lines = readFileSync(full, 'utf8').split(/(?<=\n)/);
      writeFileSync(full, lines.filter((_, i) => !remove.has(i + 1)).join(''));
    }
  }
  const text = entries
    .map((e) =>
      a.hashKnownHosts || a.port === undefined || a.port === null || a.port === DEFAULT_PORT || e.hostname!.includes(':')
        ? `${e.hostname} ${e.enc} ${e.key}\n`
        : `[${e.hostname}]:${a.port} ${e.enc} ${e.key}\n`,
    )
    .join('');
  const info = a.user ? await h.userInfo?.(a.user) : undefined;
  if (!existsSync(dirname(full))) {
    mkdirSync(dirname(full), { recursive: true });
    if (info) {
      chownSync(dirname(full), info.uid, info.gid);
      chmodSync(dirname(full), 0o700);
    }
  }
  try {
    appendFileSync(full, text);
  } catch (e) {
    throw new SshError(`Couldn't append to known hosts file: '${(e as Error).message}'`);
  }
  if (info && process.getuid?.() === 0) {
    chownSync(full, info.uid, info.gid);
  }
  chmodSync(full, origMode ?? 0o600);
  if (a.key && a.hashKnownHosts) await hashKnownHosts(h, a.user, full);
  return { status: 'updated', old: stored, new: entries };
}

export async function hashKnownHosts(
  h: KnownHostsHost,
  user: string | undefined,
  config?: string,
): Promise<{ status: string; comment?: string; error?: string }> {
  const full = await knownHostsFile(h, config, user);
  if (typeof full !== 'string') return full;
  if (!existsSync(full)) return { status: 'error', error: `Known hosts file ${full} does not exist` };
  const mode = statSync(full).mode & 0o7777;
  const out = await run(h, ['ssh-keygen', '-H', '-f', full]);
  chmodSync(full, mode);
  const info = user ? await h.userInfo?.(user) : undefined;
  if (info && process.getuid?.() === 0) {
    chownSync(full, info.uid, info.gid);
  }
  return { status: 'updated', comment: out };
}

export async function rmKnownHost(
  h: KnownHostsHost,
  user: string | undefined,
  hostname: string,
  config?: string,
  port?: number | null,
): Promise<{ status: 'removed'; comment: string } | KnownHostsError> {
  const full = await knownHostsFile(h, config, user);
  if (typeof full !== 'string') return full;
  if (!existsSync(full) || !statSync(full).isFile()) return { status: 'error', error: `Known hosts file ${full} does not exist` };
  const out = await run(h, ['ssh-keygen', '-R', sshHostname(hostname, port), '-f', full]);
  const info = user ? await h.userInfo?.(user) : undefined;
  if (info && process.getuid?.() === 0) {
    chownSync(full, info.uid, info.gid);
  }
  return { status: 'removed', comment: out };
}
