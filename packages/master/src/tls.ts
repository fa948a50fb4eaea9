import { createPrivateKey, randomBytes, timingSafeEqual, X509Certificate } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { masterErrors } from './errors.js';

export interface TlsMaterial {
  cert: string;
  key: string;
  /** SHA-256 of the certificate, colon-separated hex: what minions pin as `master_finger`. */
  fingerprint: string;
}

/**
 * Loads the configured certificate, or the self-signed one in pki_dir, creating it on first
 * start: an ECDSA P-256 key and certificate made in-process (selfsigned, on WebCrypto), the key
 * written owner-only from its first byte.
 */
export async function ensureCertificate(pkiDir: string, certFile?: string | null, keyFile?: string | null): Promise<TlsMaterial> {
  if (certFile || keyFile) return configuredCertificate(certFile, keyFile);
  const crt = path.join(pkiDir, 'master.crt');
  const key = path.join(pkiDir, 'master.key');
  if (!(existsSync(crt) && existsSync(key))) {
    mkdirSync(pkiDir, { recursive: true, mode: 0o700 });
    try {
      // loaded only on the first start of a master: it brings an ASN.1 stack
      const { generate } = await import('selfsigned');
      const pems = await generate([{ name: 'commonName', value: 'brine-master' }], {
        keyType: 'ec',
        curve: 'P-256',
        notAfterDate: new Date(Date.now() + 3650 * 86_400_000),
        algorithm: 'sha256',
      });
      // a half-written pair from an earlier crash is replaced; the key never exists readable by others
      rmSync(key, { force: true });
      writeFileSync(key, pems.private, { mode: 0o600, flag: 'wx' });
      writeFileSync(crt, pems.cert, { mode: 0o644 });
    } catch (err) {
      throw masterErrors.make('BRINE_ERR_MASTER_TLS', { detail: `cannot create the self-signed certificate in ${pkiDir}: ${(err as Error).message}` });
    }
  }
  try {
    const certPem = readFileSync(crt, 'utf8');
    const keyPem = readFileSync(key, 'utf8');
    return { cert: certPem, key: keyPem, fingerprint: new X509Certificate(certPem).fingerprint256 };
  } catch (err) {
    throw masterErrors.make('BRINE_ERR_MASTER_TLS', { detail: (err as Error).message });
  }
}

/**
 * The identity given by `tls_cert` and `tls_key` (masters of one cluster point at the same pair,
 * so the fingerprint minions pinned holds on each). It is never replaced by a made-up one: a
 * missing, unreadable or mismatched file stops the master, naming the file.
 */
export function configuredCertificate(certFile?: string | null, keyFile?: string | null, prefix: 'tls' | 'api_tls' = 'tls'): TlsMaterial {
  const fileError = (option: string, file: string, detail: string) => masterErrors.make('BRINE_ERR_MASTER_TLS_FILE', { option, file, detail });
  const [certOpt, keyOpt] = [`${prefix}_cert`, `${prefix}_key`];
  if (!certFile || !keyFile) {
    const [set, unset] = certFile ? [certOpt, keyOpt] : [keyOpt, certOpt];
    throw fileError(set, (certFile ?? keyFile)!, `is set but ${unset} is not; give both (the certificate and its private key) or neither`);
  }
  const read = (option: string, file: string): string => {
    try {
      return readFileSync(file, 'utf8');
    } catch (err) {
      const code = (err as { code?: string }).code;
      throw fileError(option, file, code === 'ENOENT' ? 'does not exist' : code === 'EACCES' ? 'is not readable by the master' : (err as Error).message);
    }
  };
  const certPem = read(certOpt, certFile);
  const keyPem = read(keyOpt, keyFile);
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(certPem);
  } catch (err) {
    throw fileError(certOpt, certFile, `is not a PEM certificate (${(err as Error).message})`);
  }
  let privateKey;
  try {
    privateKey = createPrivateKey(keyPem);
  } catch (err) {
    throw fileError(keyOpt, keyFile, `is not a PEM private key (${(err as Error).message})`);
  }
  if (!cert.checkPrivateKey(privateKey)) throw fileError(keyOpt, keyFile, `is not the private key of the certificate ${certFile}`);
  return { cert: certPem, key: keyPem, fingerprint: cert.fingerprint256 };
}

/** How long a minion may resume its TLS session (TLS 1.3 allows tickets at most 7 days old). */
export const TLS_SESSION_SECONDS = 7 * 86_400;

/**
 * The keys that seal this master's TLS session tickets, kept in `<pki_dir>/tls-ticket-keys`
 * (owner only, like master.key) so a restarted master still resumes its minions' sessions: a
 * fleet reconnecting after a restart skips the certificate signature and its check. Replaced
 * once older than the tickets they sealed may live; a minion whose ticket no longer opens does
 * a full handshake.
 */
export function ticketKeys(pkiDir: string): Buffer {
  const file = path.join(pkiDir, 'tls-ticket-keys');
  try {
    const st = statSync(file);
    const keys = readFileSync(file);
    if (keys.length === 48 && Date.now() - st.mtimeMs < TLS_SESSION_SECONDS * 1000) return keys;
  } catch {
    // missing or unreadable: made afresh below
  }
  const keys = randomBytes(48);
  try {
    mkdirSync(pkiDir, { recursive: true, mode: 0o700 });
    rmSync(file, { force: true });
    writeFileSync(file, keys, { mode: 0o600, flag: 'wx' });
  } catch {
    // a read-only pki dir: tickets still work until this master stops
  }
  return keys;
}

/** Reads the API token, creating it (mode 0600, owner only) on first start. */
export function ensureToken(file: string): string {
  if (!existsSync(file)) {
    mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    writeFileSync(file, randomBytes(32).toString('hex') + '\n', { mode: 0o600, flag: 'wx' });
  }
  const mode = statSync(file).mode & 0o077;
  if (mode !== 0) chmodSync(file, 0o600);
  return readFileSync(file, 'utf8').trim();
}

export function tokenMatches(given: string | undefined, token: string): boolean {
  if (!given) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}
