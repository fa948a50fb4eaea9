import { existsSync, statSync } from 'node:fs';
import { chmod, chown, mkdir, readFile, writeFile, appendFile } from 'node:fs/promises';
import { dirname, isAbsolute, join } from 'node:path';
import type { PasswdEntry } from './accounts.js';

/**
 * The authorized_keys operations of Salt's `ssh` execution module (auth_keys, check_key,
 * set_auth_key, rm_auth_key and their from-file forms), with Salt's line layout
 * (`[options ]enc key comment`).
 */

import { fingerprint, SshError } from './known-hosts.js';

/** A key line: options, then the key type, the key and an optional comment. */
export const KEY_LINE = /^(.*?)\s?((?:sk-)?(?:ssh-|ecds)[\w@.-]+\s.+)$/;

export interface AuthKey {
  enc: string;
  comment: string;
  options: string[];
  fingerprint: string;
}

const ALSO_ALLOWED = new Set([
  'rsa-sha2-512',
  'rsa-sha2-256',
  'rsa-sha2-512-cert-v01@openssh.com',
  'rsa-sha2-256-cert-v01@openssh.com',
  'ssh-rsa-cert-v01@openssh.com',
  'ecdsa-sha2-nistp256-cert-v01@openssh.com',
  'ecdsa-sha2-nistp384-cert-v01@openssh.com',
  'ecdsa-sha2-nistp521-cert-v01@openssh.com',
  'sk-ecdsa-sha2-nistp256@openssh.com',
  'sk-ecdsa-sha2-nistp256-cert-v01@openssh.com',
  'ssh-ed25519-cert-v01@openssh.com',
  'sk-ssh-ed25519@openssh.com',
  'sk-ssh-ed25519-cert-v01@openssh.com',
]);

/** Salt's short names for key types (r, dsa, e, ed25519...) as the full type. */
export function refineEnc(enc: string): string {
  if (['r', 'rsa', 'ssh-rsa'].includes(enc)) return 'ssh-rsa';
  if (['d', 'dsa', 'dss', 'ssh-dss'].includes(enc)) return 'ssh-dss';
  if (enc === 'e' || enc === 'ecdsa') return 'ecdsa-sha2-nistp256';
  if (['ecdsa-sha2-nistp521', 'ecdsa-sha2-nistp384', 'ecdsa-sha2-nistp256'].includes(enc)) return enc;
  if (enc === 'ed25519' || enc === 'ssh-ed25519') return 'ssh-ed25519';
  if (ALSO_ALLOWED.has(enc)) return enc;
  throw new SshError(`Incorrect encryption key type '${enc}'.`);
}

export function authLine(key: string, enc: string, comment: string, options: string[] | null | undefined): string {
  return `${options?.length ? `${options.join(',')} ` : ''}${enc} ${key} ${comment}\n`;
}

/** The authorized keys file of a user: %u, %h and %% expanded, relative to the home. */
export function keyFile(user: PasswdEntry, config: string): string {
  let out = '';
  for (let i = 0; i < config.length; i++) {
    const c = config[i]!;
    if (c !== '%') {
      out += c;
      continue;
    }
    const next = config[++i];
    if (next === undefined) throw new SshError("AuthorizedKeysFile path: Last character can't be escape character");
    if (next === '%') out += '%';
    else if (next === 'u') out += user.name;
    else if (next === 'h') out += user.home;
    else throw new SshError(`AuthorizedKeysFile path: unknown token character "%${next}"`);
  }
  return isAbsolute(out) ? out : join(user.home, out);
}

/** The keys of a key file by key, as Salt's _validate_keys reads them. */
export function parseKeys(text: string, hashType?: string | null): Map<string, AuthKey> {
  const keys = new Map<string, AuthKey>();
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const m = KEY_LINE.exec(line);
    if (!m) continue;
    const comps = m[2]!.split(/\s+/).filter(Boolean);
    if (comps.length < 2) continue;
    const fp = fingerprint(comps[1]!, hashType);
    if (fp === null) continue;
    keys.set(comps[1]!, { enc: comps[0]!, comment: comps.slice(2).join(' '), options: m[1] ? m[1].split(',') : [], fingerprint: fp });
  }
  return keys;
}

export async function authKeys(user: PasswdEntry, config: string, hashType?: string | null): Promise<Map<string, AuthKey>> {
  const file = keyFile(user, config);
  if (!existsSync(file) || !statSync(file).isFile()) return new Map();
  return parseKeys(await readFile(file, 'utf8'), hashType);
}

export type KeyStatus = 'add' | 'update' | 'exists';

export async function checkKey(
  user: PasswdEntry,
  key: string,
  enc: string,
  comment: string,
  options: string[],
  config: string,
  hashType?: string | null,
): Promise<KeyStatus> {
  const refined = refineEnc(enc);
  const have = (await authKeys(user, config, hashType)).get(key);
  if (!have) return 'add';
  return authLine(key, have.enc, have.comment, have.options) === authLine(key, refined, comment, options) ? 'exists' : 'update';
}

/** Python's `for line in file` over text: lines with their ends. */
function fileLines(text: string): string[] {
  return text.split(/(?<=\n)/).filter((l) => l !== '');
}

const REPLACE_LINE = /((.*)\s)?((?:sk-)?(?:ssh|ecdsa)-[a-z0-9@.-]+)\s([a-zA-Z0-9+/]+={0,2})(\s(.*))?/;

async function replaceKey(user: PasswdEntry, key: string, enc: string, comment: string, options: string[], config: string): Promise<void> {
  const file = keyFile(user, config);
  const line = authLine(key, enc, comment, options);
  const out: string[] = [];
  try {
    for (const raw of fileLines(await readFile(file, 'utf8'))) {
      const l = raw.trim();
      if (!l) continue;
      const m = l.startsWith('#') ? null : REPLACE_LINE.exec(`${l}\n`);
      out.push(m && m[4] === key ? line : `${l}\n`);
    }
    await writeFile(file, out.join(''));
  } catch (e) {
    throw new SshError(`Problem reading or writing to key file: ${(e as Error).message}`);
  }
}

export type SetKeyResult = 'invalid' | 'fail' | 'Invalid public key' | 'replace' | 'no change' | 'new';

export async function setAuthKey(
  user: PasswdEntry | undefined,
  key: string,
  enc: string,
  comment: string,
  options: string[],
  config: string,
  hashType?: string | null,
): Promise<SetKeyResult> {
  if (key.split(/\s+/).filter(Boolean).length > 1) return 'invalid';
  const refined = refineEnc(enc);
  if (!user) return 'fail';
  if (fingerprint(key, hashType) === null) return 'Invalid public key';
  const status = await checkKey(user, key, refined, comment, options, config, hashType);
  if (status === 'update') {
    await replaceKey(user, key, refined, comment, options, config);
    return 'replace';
  }
  if (status === 'exists') return 'no change';
  const file = keyFile(user, config);
  if (file.startsWith(user.home) && !existsSync(user.home)) return 'fail';
  const dir = dirname(file);
  const root = process.getuid?.() === 0;
  if (!existsSync(dir)) {
    await mkdir(dir, { recursive: true });
    if (root) await chown(dir, user.uid, user.gid);
    await chmod(dir, 0o700);
  }
  const isNew = !existsSync(file);
  try {
    let prefix = '';
    if (!isNew) {
      const text = await readFile(file);
      if (text.length > 0 && text[text.length - 1] !== 0x0a) prefix = '\n';
    }
    await appendFile(file, prefix + authLine(key, refined, comment, options));
  } catch (e) {
    throw new SshError(`Could not write to key file: ${(e as Error).message}`);
  }
  if (isNew) {
    if (root) await chown(file, user.uid, user.gid);
    await chmod(file, 0o600);
  }
  return 'new';
}

export type RmKeyResult = 'Key removed' | 'Key not present' | 'Key not removed' | string;

export async function rmAuthKey(user: PasswdEntry, key: string, config: string, hashType?: string | null): Promise<RmKeyResult> {
  if (!(await authKeys(user, config, hashType)).has(key)) return 'Key not present';
  const file = keyFile(user, config);
  const out: string[] = [];
  try {
    for (const raw of fileLines(await readFile(file, 'utf8'))) {
      const l = raw.trim();
      if (!l) continue;
      if (l.startsWith('#')) {
        out.push(`${l}\n`);
        continue;
      }
      const m = KEY_LINE.exec(l);
      if (!m) continue;
      const comps = m[2]!.split(/\s+/).filter(Boolean);
      if (comps.length >= 2 && comps[1] === key) continue;
      out.push(`${l}\n`);
    }
    await writeFile(file, out.join(''));
  } catch {
    return 'Key not removed';
  }
  return 'Key removed';
}
