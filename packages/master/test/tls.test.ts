import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { X509Certificate, createPrivateKey } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { ensureCertificate } from '../src/tls.js';

t.test('the self-signed certificate is made in-process, its key owner-only, and kept', async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-tls-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const pki = path.join(dir, 'pki');
  const PATH = process.env.PATH;
  process.env.PATH = '/nonexistent'; // no openssl binary to fall back on
  let first;
  try {
    first = await ensureCertificate(pki);
  } finally {
    process.env.PATH = PATH;
  }
  t.equal(statSync(path.join(pki, 'master.key')).mode & 0o777, 0o600);
  t.equal(statSync(pki).mode & 0o777, 0o700);
  const cert = new X509Certificate(first.cert);
  t.equal(cert.subject, 'CN=brine-master');
  t.equal(cert.fingerprint256, first.fingerprint);
  t.ok(cert.checkPrivateKey(createPrivateKey(first.key)), 'the key belongs to the certificate');
  t.equal(createPrivateKey(first.key).asymmetricKeyDetails?.namedCurve, 'prime256v1');
  t.ok(new Date(cert.validTo).getTime() > Date.now() + 9 * 365 * 86_400_000, 'valid for ten years');
  const again = await ensureCertificate(pki);
  t.equal(again.fingerprint, first.fingerprint, 'a restart keeps the identity minions pinned');
});
