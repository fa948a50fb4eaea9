import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import t from 'tap';
import { MasterClient } from '@brine/master';
import { stringify } from 'yaml';
import { Cluster } from './helpers/cluster.js';
import { BrineProcess, brine } from './helpers/proc.js';

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown>;
}

/** One request as a browser or a script would send it, from a chosen loopback source address. */
function request(
  url: string,
  opts: { method?: string; path: string; token?: string; body?: unknown; from?: string; host?: string; ca?: string; cookie?: string },
): Promise<Answer> {
  const u = new URL(url);
  const body = opts.body === undefined ? undefined : JSON.stringify(opts.body);
  const headers: Record<string, string> = {
    ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
    ...(body ? { 'content-type': 'application/json' } : {}),
    ...(opts.host ? { host: opts.host } : {}),
    ...(opts.cookie ? { cookie: opts.cookie } : {}),
  };
  const lib = u.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = lib.request(
      {
        host: u.hostname,
        port: u.port,
        method: opts.method ?? 'GET',
        path: opts.path,
        headers,
        agent: false,
        ...(opts.from ? { localAddress: opts.from } : {}),
        ...(opts.ca ? { ca: opts.ca } : {}),
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (c: string) => (text += c));
        res.on('end', () => {
          let parsed: Record<string, unknown> = {};
          try {
            parsed = JSON.parse(text) as Record<string, unknown>;
          } catch {
            parsed = { text };
          }
          resolve({ status: res.statusCode!, headers: res.headers, body: parsed });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const c = new Cluster({ minions: ['m1'], master: { api_allowed_hosts: ['brine.internal'] } });
t.before(() => c.start());
t.teardown(() => c.close());
const token = () => c.client.target.token;

t.test('wrong bearer tokens from one source are held off (429, Retry-After); the right token from another source is not', async (t) => {
  const statuses: number[] = [];
  const codes = new Set<unknown>();
  let retryAfter: string | undefined;
  for (let i = 0; i < 50; i++) {
    const r = await request(c.apiUrl, { path: '/v1/minions', token: `guess-${i}`, from: '127.0.0.2' });
    statuses.push(r.status);
    if (r.status === 429) {
      retryAfter ??= r.headers['retry-after'] as string;
      codes.add(r.body.code);
    }
  }
  t.same([...codes], ['BRINE_ERR_MASTER_AUTH_BACKOFF'], 'each 429 is a coded answer');
  const held = statuses.filter((s) => s === 429).length;
  t.ok(held >= 40, `most of 50 wrong guesses are held off (${held} answered 429, ${statuses.filter((s) => s === 401).length} answered 401)`);
  t.ok(Number(retryAfter) >= 1, `Retry-After: ${retryAfter}`);
  // even the right token is not checked while its source is held off: a guess teaches nothing
  t.equal((await request(c.apiUrl, { path: '/v1/minions', token: token(), from: '127.0.0.2' })).status, 429);
  // another source is unaffected
  t.equal((await request(c.apiUrl, { path: '/v1/minions', token: token(), from: '127.0.0.3' })).status, 200, 'the right token from another source');
  t.equal((await request(c.apiUrl, { path: '/v1/minions', token: 'wrong', from: '127.0.0.4' })).status, 401, 'a first wrong guess elsewhere is a 401');
  // the fleet is served meanwhile
  const r = await c.run('m1', 'test.ping');
  t.same(r.returns.m1?.return, true, 'another minion still runs a job');
});

t.test('console sign-in guesses are held off the same way', async (t) => {
  const statuses: number[] = [];
  for (let i = 0; i < 50; i++) {
    statuses.push((await request(c.apiUrl, { method: 'POST', path: '/ui/login', body: { token: `guess-${i}` }, from: '127.0.0.5' })).status);
  }
  const held = statuses.filter((s) => s === 429).length;
  t.ok(held >= 40, `most of 50 sign-in guesses are held off (${held} answered 429)`);
  t.equal((await request(c.apiUrl, { method: 'POST', path: '/ui/login', body: { token: token() }, from: '127.0.0.5' })).status, 429);
  const ok = await request(c.apiUrl, { method: 'POST', path: '/ui/login', body: { token: token() }, from: '127.0.0.6' });
  t.equal(ok.status, 200, 'the right token signs in from another source');
  t.notMatch(String(ok.headers['set-cookie']), /Secure/, 'over plain HTTP the cookie cannot be Secure');
});

t.test('a Host the API does not answer to is refused (DNS rebinding)', async (t) => {
  const port = new URL(c.apiUrl).port;
  for (const host of ['evil.example', `evil.example:${port}`, `127.0.0.1.nip.io:${port}`]) {
    const r = await request(c.apiUrl, { path: '/v1/minions', token: token(), host });
    t.equal(r.status, 421, host);
    t.match(r.body, { code: 'BRINE_ERR_MASTER_API_HOST', message: /api_allowed_hosts/ }, host);
  }
  const page = await request(c.apiUrl, { path: '/ui/', host: 'evil.example' });
  t.equal(page.status, 421, 'the console page too');
  for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, 'brine.internal', `[::1]:${port}`, `LOCALHOST:${port}`]) {
    t.equal((await request(c.apiUrl, { path: '/v1/minions', token: token(), host })).status, 200, host);
  }
});

t.test('a non-loopback api_host without TLS is refused unless api_insecure_http', async (t) => {
  const file = path.join(c.dir, 'open.yaml');
  const base = { interface: '127.0.0.1', port: 0, api_port: 0, api_host: '0.0.0.0', data_dir: path.join(c.dir, 'open') };
  writeFileSync(file, stringify(base));
  const refused = new BrineProcess('open', ['master', '--config', file]);
  await Promise.race([refused.waitEvent('master_ready'), refused.exited()]);
  const started = refused.running;
  await refused.kill('SIGTERM');
  t.notOk(started, 'the master does not start');
  t.match(refused.stderrText, /BRINE_ERR_MASTER_API_INSECURE: api_host 0\.0\.0\.0 .*api_tls_cert and api_tls_key.*api_insecure_http: true/);
  writeFileSync(file, stringify({ ...base, api_insecure_http: true }));
  const m = new BrineProcess('open', ['master', '--config', file]);
  t.teardown(() => m.kill('SIGTERM'));
  const ready = await m.waitEvent('master_ready');
  t.match(ready.api_url, /^http:\/\//);
});

t.test('with api_tls_cert/api_tls_key the API and console speak HTTPS; the CLI trusts the certificate', async (t) => {
  const dir = path.join(c.dir, 'tls');
  execFileSync('mkdir', ['-p', dir]);
  const cert = path.join(dir, 'api.crt');
  const key = path.join(dir, 'api.key');
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
    'subjectAltName=IP:127.0.0.1,DNS:localhost',
    '-keyout',
    key,
    '-out',
    cert,
  ]);
  const tc = new Cluster({ minions: ['t1'], master: { api_tls_cert: cert, api_tls_key: key } });
  t.teardown(() => tc.close());
  // the helper's client knows no CA: the cluster is started by hand
  await tc.startMaster();
  t.match(tc.apiUrl, /^https:\/\/127\.0\.0\.1:\d+$/, 'the master announces an https URL');
  const ca = readFileSync(cert, 'utf8');
  tc.client = new MasterClient({ url: tc.apiUrl, token: tc.client.target.token, ca });
  await tc.startMinion('t1').waitEvent('minion_ready');
  await tc.waitMinionsKnown(['t1']);
  const r = await tc.run('t1', 'test.ping');
  t.same(r.returns.t1?.return, true, 'a job over the HTTPS API');

  await t.rejects(
    new MasterClient({ url: tc.apiUrl, token: tc.client.target.token }).get('/v1/minions'),
    { code: 'BRINE_ERR_MASTER_UNREACHABLE' },
    'an unknown certificate is refused',
  );
  const plain = await request(tc.apiUrl.replace('https:', 'http:'), { path: '/v1/minions', token: tc.client.target.token }).catch((e: Error) => e);
  t.ok(plain instanceof Error || plain.status >= 400, 'plain HTTP gets no answer');
  const login = await request(tc.apiUrl, { method: 'POST', path: '/ui/login', body: { token: tc.client.target.token }, ca });
  t.equal(login.status, 200);
  t.match(String(login.headers['set-cookie']), /; Secure/, 'the console session cookie is Secure');
  t.match(String(login.headers['set-cookie']), /HttpOnly/);

  // the CLI finds the API from the master config and trusts api_tls_cert
  const cli = path.join(tc.dir, 'cli.yaml');
  writeFileSync(cli, stringify({ api_port: tc.apiPort, api_tls_cert: cert, api_tls_key: key, data_dir: path.join(tc.dir, 'master') }));
  const keys = await brine(['key', 'list', '--config', cli], {});
  t.equal(keys.code, 0, keys.stderr);
  t.match(keys.stdout, /t1/);
});
