import t from 'tap';
import type { Master } from '../src/master.js';
import { inProcessMaster } from './helpers/in-process-master.js';
import { CSRF_HEADER, SESSION_COOKIE } from '../src/ui-sessions.js';

/**
 * The API's gate on every request (api.ts onRequest) and the console's sign-in routes, through a
 * real master in this process (fastify `inject`): the Host check, the bearer header's exact form,
 * the wrong-token back-off for bearer and sign-in alike, reads without CSRF, /metrics when public.
 * Each test guesses from its own address, so the back-off of one does not reach the others.
 */
const server = inProcessMaster(t, 'api-auth', { metrics_public: true });
let master: Master;
t.before(() => {
  master = server.get();
});

const get = (url: string, headers: Record<string, string> = {}, remoteAddress = '127.0.0.1') =>
  master.api.inject({ method: 'GET', url, headers, remoteAddress });
const code = (r: { json(): unknown }) => (r.json() as { code: string }).code;

t.test('a Host the API does not answer to is refused before anything else', async (t) => {
  const r = await get('/v1/keys', { host: 'evil.example', authorization: `Bearer ${master.token}` });
  t.equal(r.statusCode, 421);
  t.equal(code(r), 'BRINE_ERR_MASTER_API_HOST');
  t.match((r.json() as { message: string }).message, /evil\.example/);
  t.equal((await get('/v1/openapi.json', { host: 'evil.example' })).statusCode, 421, 'public routes too');
});

t.test('public routes need no token; the rest do', async (t) => {
  t.equal((await get('/v1/openapi.json')).statusCode, 200);
  t.equal((await get('/v1/openapi.json?x=1')).statusCode, 200, 'with a query');
  t.equal((await get('/metrics')).statusCode, 200, 'metrics_public: /metrics without the token');
  t.equal((await get('/metrics?format=x')).statusCode, 200);
  const r = await get('/v1/keys');
  t.equal(r.statusCode, 401);
  t.equal(code(r), 'BRINE_ERR_MASTER_UNAUTHORIZED');
  t.equal((await master.api.inject({ method: 'POST', url: '/ui', remoteAddress: '127.0.0.9' })).statusCode, 401, 'the console page is public to GET only');
});

t.test("the bearer header's form: 'Bearer ' then the token, spaces around it trimmed", async (t) => {
  const ip = '127.0.0.2';
  t.equal((await get('/v1/keys', { authorization: `Bearer ${master.token}` }, ip)).statusCode, 200);
  t.equal((await get('/v1/keys', { authorization: `Bearer   ${master.token}  ` }, ip)).statusCode, 200);
  t.equal((await get('/v1/keys', { authorization: `bearer ${master.token}` }, ip)).statusCode, 401, 'the scheme as written');
  t.equal((await get('/v1/keys', { authorization: `Token ${master.token}` }, ip)).statusCode, 401);
  t.equal((await get('/v1/keys', { authorization: master.token }, ip)).statusCode, 401);
  t.equal((await get('/v1/keys', { authorization: 'Bearer ' }, ip)).statusCode, 401);
});

t.test('wrong bearer tokens are held off per source, the right one included, and a success starts over', async (t) => {
  const ip = '127.0.0.3';
  const wrong = { authorization: 'Bearer wrong' };
  for (let i = 0; i < 4; i++) t.equal((await get('/v1/keys', wrong, ip)).statusCode, 401, `wrong guess ${i + 1}`);
  t.equal((await get('/v1/keys', { authorization: `Bearer ${master.token}` }, ip)).statusCode, 200);
  // the success forgot the four: five more wrong guesses are free again
  for (let i = 0; i < 5; i++) t.equal((await get('/v1/keys', wrong, ip)).statusCode, 401, `free guess ${i + 1}`);
  const held = await get('/v1/keys', { authorization: `Bearer ${master.token}` }, ip);
  t.equal(held.statusCode, 429, 'held off: the right token is not even checked');
  t.equal(code(held), 'BRINE_ERR_MASTER_AUTH_BACKOFF');
  t.match((held.json() as { message: string }).message, new RegExp(`${ip.replace(/\./g, '\\.')}.*\\d+`), 'the message names the source and the wait');
  t.match(held.headers['retry-after'], /^\d+$/);
  t.ok(Number(held.headers['retry-after']) >= 1);
  t.equal((await get('/v1/keys', { authorization: `Bearer ${master.token}` }, '127.0.0.4')).statusCode, 200, 'another source is not held off');
  const signIn = await master.api.inject({ method: 'POST', url: '/ui/login', payload: { token: master.token }, remoteAddress: ip });
  t.equal(signIn.statusCode, 429, 'signing in from the held-off source is held off too');
  t.match(signIn.headers['retry-after'], /^\d+$/);
  t.equal(code(signIn), 'BRINE_ERR_MASTER_AUTH_BACKOFF');
  t.match((signIn.json() as { message: string }).message, new RegExp(`${ip.replace(/\./g, '\\.')}.*\\d+`));
});

t.test('wrong sign-ins count toward the back-off; a right one starts over', async (t) => {
  const ip = '127.0.0.5';
  const login = (token: string) => master.api.inject({ method: 'POST', url: '/ui/login', payload: { token }, remoteAddress: ip });
  for (let i = 0; i < 4; i++) {
    const r = await login('wrong');
    t.equal(r.statusCode, 401);
    t.equal(code(r), 'BRINE_ERR_MASTER_UNAUTHORIZED');
  }
  const ok = await login(`  ${master.token} `);
  t.equal(ok.statusCode, 200, 'the token is trimmed');
  const cookie = ok.cookies.find((c) => c.name === SESSION_COOKIE)!;
  t.match(cookie, { httpOnly: true, sameSite: 'Strict', path: '/' });
  t.notOk(cookie.secure, 'plain HTTP: not a secure-only cookie');
  for (let i = 0; i < 5; i++) t.equal((await login('wrong')).statusCode, 401, `free guess ${i + 1}`);
  t.equal((await login(master.token)).statusCode, 429);
});

t.test('a console session reads with GET and HEAD without the CSRF header; /ui/session answers its token', async (t) => {
  const r = await master.api.inject({ method: 'POST', url: '/ui/login', payload: { token: master.token }, remoteAddress: '127.0.0.6' });
  const c = r.cookies.find((k) => k.name === SESSION_COOKIE)!;
  const cookie = `${SESSION_COOKIE}=${c.value}`;
  const csrf = (r.json() as { csrf: string }).csrf;
  t.equal((await get('/v1/keys', { cookie })).statusCode, 200);
  t.equal((await master.api.inject({ method: 'HEAD', url: '/v1/keys', headers: { cookie } })).statusCode, 200);
  const del = await master.api.inject({ method: 'DELETE', url: '/v1/keys/nobody', headers: { cookie } });
  t.equal(del.statusCode, 403, 'DELETE needs it');
  t.equal(code(del), 'BRINE_ERR_MASTER_CSRF');
  t.not((await master.api.inject({ method: 'DELETE', url: '/v1/keys/nobody', headers: { cookie, [CSRF_HEADER]: csrf } })).statusCode, 403);
  const s = await get('/ui/session', { cookie });
  t.same(s.json(), { csrf, user: 'api' });
  const none = await get('/ui/session');
  t.equal(none.statusCode, 401);
  t.equal(code(none), 'BRINE_ERR_MASTER_UNAUTHORIZED');
  const out = await master.api.inject({ method: 'POST', url: '/ui/logout', headers: { cookie } });
  t.same(out.json(), { ok: true });
  t.match(
    out.cookies.find((k) => k.name === SESSION_COOKIE),
    { value: '', path: '/' },
    'the cookie is cleared',
  );
});

t.test('sign-in takes a token string of at most 1024 characters; the console routes stay out of the API description', async (t) => {
  const login = (payload: unknown) =>
    master.api.inject({ method: 'POST', url: '/ui/login', payload: payload as Record<string, unknown>, remoteAddress: '127.0.0.7' });
  t.equal((await login({})).statusCode, 400, 'no token');
  t.equal((await login({ token: { a: 1 } })).statusCode, 400, 'not a string');
  t.equal((await login({ token: 'x'.repeat(1025) })).statusCode, 400, 'too long');
  const paths = Object.keys(((await get('/v1/openapi.json')).json() as { paths: Record<string, unknown> }).paths);
  t.ok(paths.length > 0);
  t.same(
    paths.filter((p) => p.startsWith('/ui')),
    [],
  );
});
