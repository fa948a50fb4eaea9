import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { minionErrors } from './errors.js';

export interface MinionIdentity {
  privateKey: KeyObject;
  /** SPKI PEM, what the hello carries. */
  publicPem: string;
  /** What `brine key finger` shows for this key on the master: SHA-256 of the SPKI DER, colon-separated hex. */
  fingerprint: string;
}

/** The minion's Ed25519 key pair, created on first start (private key mode 0600). */
export function ensureIdentity(pkiDir: string): MinionIdentity {
  const priv = path.join(pkiDir, 'minion.pem');
  const pub = path.join(pkiDir, 'minion.pub');
  try {
    if (!existsSync(priv)) {
      mkdirSync(pkiDir, { recursive: true, mode: 0o700 });
      const { privateKey, publicKey } = generateKeyPairSync('ed25519');
      writeFileSync(priv, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600, flag: 'wx' });
      writeFileSync(pub, publicKey.export({ type: 'spki', format: 'pem' }), { mode: 0o644 });
    }
    const privateKey = createPrivateKey(readFileSync(priv));
    const publicKey = createPublicKey(privateKey);
    const publicPem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const der = publicKey.export({ type: 'spki', format: 'der' });
    const fingerprint = createHash('sha256').update(der).digest('hex').toUpperCase().match(/../g)!.join(':');
    return { privateKey, publicPem, fingerprint };
  } catch (err) {
    throw minionErrors.make('BRINE_ERR_MINION_KEY', { dir: pkiDir, detail: (err as Error).message });
  }
}
