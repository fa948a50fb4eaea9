import { execFileSync } from 'node:child_process';
import { randomBytes, timingSafeEqual, X509Certificate } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
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
 * start. node:crypto cannot issue X.509 certificates, so this calls the openssl binary.
 */
export function ensureCertificate(pkiDir: string, certFile?: string | null, keyFile?: string | null): TlsMaterial {
  const crt = certFile ?? path.join(pkiDir, 'master.crt');
  const key = keyFile ?? path.join(pkiDir, 'master.key');
  if (!certFile && !(existsSync(crt) && existsSync(key))) {
    mkdirSync(pkiDir, { recursive: true, mode: 0o700 });
    try {
      execFileSync(
        'openssl',
        [
          'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
          '-keyout', key, '-out', crt, '-days', '3650', '-subj', '/CN=brine-master',
        ],
        { stdio: ['ignore', 'ignore', 'pipe'] },
      );
      chmodSync(key, 0o600);
    } catch (err) {
      throw masterErrors.make('BRINE_ERR_MASTER_TLS', { detail: `openssl failed: ${(err as Error).message}` });
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
