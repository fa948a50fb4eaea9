import { chmodSync, copyFileSync, existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
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

t.test('a configured identity (tls_cert, tls_key) is used as is, or the master refuses to start naming the file', async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-tls-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  // the cluster's one identity: made once, then given to every master
  const made = await ensureCertificate(path.join(dir, 'made'));
  const crt = path.join(dir, 'made', 'master.crt');
  const key = path.join(dir, 'made', 'master.key');
  const shared = await ensureCertificate(path.join(dir, 'unused'), crt, key);
  t.equal(shared.fingerprint, made.fingerprint, 'the same fingerprint on every master that uses it');
  t.notOk(existsSync(path.join(dir, 'unused')), 'no self-signed pair is made beside a configured one');

  const missing = path.join(dir, 'nope.crt');
  await t.rejects(ensureCertificate(dir, missing, key), {
    code: 'BRINE_ERR_MASTER_TLS_FILE',
    message: `tls_cert ${missing}: does not exist; the master does not start without its configured TLS identity`,
  });
  await t.rejects(ensureCertificate(dir, crt, path.join(dir, 'nope.key')), {
    code: 'BRINE_ERR_MASTER_TLS_FILE',
    message: /^tls_key .*nope\.key: does not exist/,
  });
  await t.rejects(ensureCertificate(dir, crt, null), { code: 'BRINE_ERR_MASTER_TLS_FILE', message: /^tls_cert .*master\.crt: is set but tls_key is not/ });
  await t.rejects(ensureCertificate(dir, null, key), { code: 'BRINE_ERR_MASTER_TLS_FILE', message: /^tls_key .*master\.key: is set but tls_cert is not/ });

  const garbage = path.join(dir, 'garbage.pem');
  writeFileSync(garbage, 'not a certificate\n');
  await t.rejects(ensureCertificate(dir, garbage, key), { code: 'BRINE_ERR_MASTER_TLS_FILE', message: /^tls_cert .*garbage\.pem: is not a PEM certificate/ });
  await t.rejects(ensureCertificate(dir, crt, garbage), { code: 'BRINE_ERR_MASTER_TLS_FILE', message: /^tls_key .*garbage\.pem: is not a PEM private key/ });
  const other = await ensureCertificate(path.join(dir, 'other'));
  t.not(other.fingerprint, made.fingerprint);
  await t.rejects(ensureCertificate(dir, crt, path.join(dir, 'other', 'master.key')), {
    code: 'BRINE_ERR_MASTER_TLS_FILE',
    message: /^tls_key .*other\/master\.key: is not the private key of the certificate .*made\/master\.crt/,
  });
  if (process.getuid?.() !== 0) {
    const locked = path.join(dir, 'locked.key');
    copyFileSync(key, locked);
    chmodSync(locked, 0);
    await t.rejects(ensureCertificate(dir, crt, locked), {
      code: 'BRINE_ERR_MASTER_TLS_FILE',
      message: /^tls_key .*locked\.key: is not readable by the master/,
    });
  }
});
