import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request } from 'node:https';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { inProcessMaster } from './helpers/in-process-master.js';
import { SESSION_COOKIE } from '../src/ui-sessions.js';

/**
 * The console session cookie is `Secure` when the API speaks HTTPS (api_tls_cert/api_tls_key):
 * a browser then never sends it over plain HTTP. Over plain HTTP (loopback only) it cannot be,
 * or the browser would drop it. Real masters in this process, real requests over TCP.
 */
const pki = mkdtempSync(path.join(os.tmpdir(), 'brine-console-tls-'));
const cert = path.join(pki, 'api.crt');
const key = path.join(pki, 'api.key');
// written before the masters start (their t.before hooks)
execFileSync('openssl', [
  'req',
  '-x509',
  '-newkey',
  'ec',
  '-pkeyopt',
  'ec_paramgen_curve:P-256',
  '-nodes',
  '-days',
  '2',
  '-subj',
  '/CN=brine-api',
  '-addext',
  'subjectAltName=IP:127.0.0.1',
  '-keyout',
  key,
  '-out',
  cert,
]);
t.teardown(() => rmSync(pki, { recursive: true, force: true }));
const tls = inProcessMaster(t, 'console-tls', { api_tls_cert: cert, api_tls_key: key });
const plain = inProcessMaster(t, 'console-plain');

/** The session cookie a sign-in sets, as the Set-Cookie header says it. */
async function signInCookie(apiUrl: string, token: string): Promise<string> {
  const body = JSON.stringify({ token });
  const res = await new Promise<{ status: number; cookies: string[] }>((resolve, reject) => {
    const url = new URL('/ui/login', apiUrl);
    const headers = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) };
    const done = (r: IncomingMessage) => {
      r.resume();
      r.on('end', () => resolve({ status: r.statusCode ?? 0, cookies: r.headers['set-cookie'] ?? [] }));
    };
    const req =
      url.protocol === 'https:'
        ? request(url, { method: 'POST', headers, ca: readFileSync(cert, 'utf8') }, done)
        : httpRequest(url, { method: 'POST', headers }, done);
    req.on('error', reject);
    req.end(body);
  });
  if (res.status !== 200) throw new Error(`sign-in: ${res.status}`);
  const cookie = res.cookies.find((c) => c.startsWith(`${SESSION_COOKIE}=`));
  if (!cookie) throw new Error(`no session cookie in ${JSON.stringify(res.cookies)}`);
  return cookie;
}

t.test('over HTTPS the session cookie is Secure (and HttpOnly, SameSite=Strict)', async (t) => {
  const m = tls.get();
  t.match(m.apiUrl, /^https:/, 'the API speaks HTTPS');
  const cookie = await signInCookie(m.apiUrl, m.token);
  t.match(cookie, /; Secure(;|$)/, cookie);
  t.match(cookie, /; HttpOnly(;|$)/);
  t.match(cookie, /; SameSite=Strict(;|$)/);
});

t.test('over plain HTTP (loopback) the session cookie is not Secure', async (t) => {
  const m = plain.get();
  t.match(m.apiUrl, /^http:/);
  const cookie = await signInCookie(m.apiUrl, m.token);
  t.notMatch(cookie, /Secure/, cookie);
  t.match(cookie, /; HttpOnly(;|$)/);
});
