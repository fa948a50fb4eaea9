import t from 'tap';
import type { Master } from '../src/master.js';
import { inProcessMaster } from './helpers/in-process-master.js';
import { hashPassword, verifyPassword } from '../src/auth/passwords.js';
import { checkExternalAuth, grantsFor, mayRun, maySee, maySpecial, type Identity } from '../src/auth/permissions.js';
import { ROUTE_ACCESS } from '../src/auth/route-access.js';
import { SESSION_COOKIE } from '../src/ui-sessions.js';

/**
 * Local accounts, user tokens, Salt's external_auth and the audit trail through a real master in
 * this process (fastify `inject`, its SQLite store). Each test signs in from its own address, so
 * the wrong-password back-off of one does not reach the others.
 */
const externalAuth = {
  local: {
    webop: [{ 'web*': ['state.*', 'test.*'] }],
    auditor: ['@jobs', '@wheel'],
    consoleop: ['test.*'],
    'ops%': ['.*'],
  },
};
const server = inProcessMaster(t, 'accounts', { external_auth: externalAuth });
let master: Master;
t.before(() => {
  master = server.get();
});

type Json = Record<string, unknown>;
const call = async (method: 'GET' | 'POST', url: string, token: string, payload?: Json, remoteAddress = '127.0.0.1') => {
  const r = await master.api.inject({ method, url, headers: { authorization: `Bearer ${token}` }, ...(payload ? { payload } : {}), remoteAddress });
  return { status: r.statusCode, body: r.json() as Json };
};
const admin = (method: 'GET' | 'POST', url: string, payload?: Json) => call(method, url, master.token, payload);
const login = async (username: string, password: string, ttl?: string, remoteAddress = '127.0.0.2') => {
  const r = await master.api.inject({ method: 'POST', url: '/v1/login', payload: { username, password, ...(ttl ? { ttl } : {}) }, remoteAddress });
  return { status: r.statusCode, body: r.json() as Json };
};

t.test('passwords: scrypt with its parameters in the stored value, checked in constant time', async (t) => {
  const h = await hashPassword('correct horse');
  t.match(h, /^scrypt\$32768\$8\$1\$[\w-]+\$[\w-]+$/);
  t.ok(await verifyPassword('correct horse', h));
  t.notOk(await verifyPassword('correct horsf', h));
  t.notOk(await verifyPassword('correct horse', h.replace('$32768$', '$16384$')), 'the parameters are part of the check');
  t.notOk(await verifyPassword('x', 'plain'), 'a malformed value never matches');
});

t.test("permissions read as Salt's external_auth", async (t) => {
  const ea = checkExternalAuth(externalAuth);
  const who = (user: string, groups: string[] = []): Identity => ({
    user,
    eauth: 'local',
    groups,
    admin: false,
    grants: grantsFor(ea, 'local', user, groups) ?? [],
  });
  const web = who('webop');
  t.ok(mayRun(web, 'state.apply', 'web1', {}));
  t.ok(mayRun(web, 'test.ping', 'web2', {}));
  t.notOk(mayRun(web, 'cmd.run', 'web1', {}), 'a function no regex matches');
  t.notOk(mayRun(web, 'state.apply', 'db1', {}), 'a minion the target does not match');
  t.ok(maySee(web, 'web1', {}));
  t.notOk(maySee(web, 'db1', {}));
  t.notOk(maySpecial(web, '@runner'));
  t.ok(mayRun(who('x', ['ops']), 'cmd.run', 'db1', {}), "a group's grants ('ops%')");
  t.notOk(maySpecial(who('x', ['ops']), '@wheel'), "'.*' grants functions, not the special forms");
  t.ok(maySpecial(who('auditor'), '@jobs'));
  t.equal(grantsFor(ea, 'local', 'stranger', []), undefined, 'a user not named has no grants at all');
  const compound = checkExternalAuth({ local: { c: [{ 'G@role:web and not db*': ['test.ping'] }] } });
  const c = { user: 'c', eauth: 'local' as const, groups: [], admin: false, grants: grantsFor(compound, 'local', 'c', [])! };
  t.ok(mayRun(c, 'test.ping', 'app1', { role: 'web' }), 'a compound target, on grains');
  t.notOk(mayRun(c, 'test.ping', 'app1', { role: 'db' }));
  t.throws(() => checkExternalAuth({ pam: {} }), { code: 'BRINE_ERR_MASTER_EAUTH_CONFIG' });
  t.throws(() => checkExternalAuth({ local: { a: [{ 'web*': [{ 'cmd.run': { args: ['ls'] } }] }] } }), { code: 'BRINE_ERR_MASTER_EAUTH_CONFIG' });
});

t.test('every route of the API declares what it needs', async (t) => {
  const routes = master.api.printRoutes({ commonPrefix: false });
  t.ok(Object.keys(ROUTE_ACCESS).length > 30);
  t.match(routes, /v1\/audit/);
});

t.test('brine user add, then a password sign-in gives an expiring token with that user', async (t) => {
  t.equal((await admin('POST', '/v1/users', { name: 'webop', password: 'web-secret-1' })).status, 200);
  t.equal((await admin('POST', '/v1/users', { name: 'webop', password: 'web-secret-1' })).status, 400, 'added once');
  const users = (await admin('GET', '/v1/users')).body.users as Json[];
  t.same(
    users.map((u) => u.name),
    ['webop'],
  );
  t.notOk('password' in users[0]!, 'the hash never leaves the master');
  const bad = await login('webop', 'wrong-password', undefined, '127.0.0.3');
  t.equal(bad.status, 401);
  t.equal(bad.body.code, 'BRINE_ERR_MASTER_BAD_LOGIN');
  const ok = await login('webop', 'web-secret-1', '8h');
  t.equal(ok.status, 200);
  t.match(ok.body.token, /^brn_[0-9a-f]{12}_/);
  const left = Date.parse(ok.body.expires_at as string) - Date.now();
  t.ok(left > 7.9 * 3600_000 && left <= 8 * 3600_000, 'expires in 8 hours');
  const me = await call('GET', '/v1/whoami', ok.body.token as string);
  t.same(me.body, { user: 'webop', eauth: 'local', groups: [], admin: false });
});

t.test('a user without @wheel is refused key management with a coded 403 naming the permission', async (t) => {
  const { body } = await login('webop', 'web-secret-1');
  const r = await call('GET', '/v1/keys', body.token as string);
  t.equal(r.status, 403);
  t.equal(r.body.code, 'BRINE_ERR_MASTER_FORBIDDEN');
  t.match(r.body.message, /user webop \(local\) may not GET \/v1\/keys: the permission missing is @wheel/);
  t.equal((await call('POST', '/v1/runner', body.token as string, { fun: 'state.orch', arg: ['x'] })).status, 403, '@runner');
  // (the event stream answers every signed-in user, filtered to what they may see: event-filter.test.ts)
  t.equal((await call('GET', '/v1/jobs/active', body.token as string)).status, 403, '@jobs for every active job');
  const minions = await call('GET', '/v1/minions', body.token as string);
  t.equal(minions.status, 200, 'the minion list answers, with the minions the user may target');
});

t.test("a restricted user's minion list: total and next count only the minions they may see", async (t) => {
  for (const id of ['db1', 'db2', 'db3', 'web1', 'web2', 'zz1']) await master.store.saveGrains(id, { id });
  const { body } = await login('webop', 'web-secret-1', undefined, '127.0.0.4');
  const list = async (query: string, token = body.token as string) => {
    const r = await call('GET', `/v1/minions${query}`, token);
    t.equal(r.status, 200, query);
    const b = r.body as { minions: Array<{ id: string }>; total: number; next: string | null };
    return { ids: b.minions.map((m) => m.id), total: b.total, next: b.next };
  };
  t.same(await list(''), { ids: ['web1', 'web2'], total: 2, next: null }, 'every minion they may see, counted');
  t.same(await list('?limit=1'), { ids: ['web1'], total: 2, next: 'web1' }, 'a page of one: the first visible minion');
  t.same(await list('?limit=1&after=web1'), { ids: ['web2'], total: 2, next: null }, 'the next page: the last visible minion, no page after it');
  t.same(await list('?limit=1&offset=1'), { ids: ['web2'], total: 2, next: null }, 'an offset counts visible minions');
  t.same(await list('?id=db1'), { ids: [], total: 0, next: null }, 'a minion they may not see is not counted');
  t.same(await list('?limit=2', master.token), { ids: ['db1', 'db2'], total: 6, next: 'db2' }, 'the admin sees and counts every minion');
});

t.test('a token expires and is refused afterwards; a revoked token is refused at once', async (t) => {
  const short = await login('webop', 'web-secret-1', '1s');
  const token = short.body.token as string;
  t.equal((await call('GET', '/v1/whoami', token, undefined, '127.0.0.10')).status, 200);
  // the refusal is waited on in a loop bounded by a deadline, not a sleep
  const deadline = Date.now() + 10_000;
  let status = 200;
  while (status === 200 && Date.now() < deadline) status = (await call('GET', '/v1/whoami', token, undefined, '127.0.0.10')).status;
  t.equal(status, 401, 'refused once expired');
  const long = await login('webop', 'web-secret-1', '1h');
  const id = long.body.id as string;
  t.equal((await call('GET', '/v1/whoami', long.body.token as string, undefined, '127.0.0.11')).status, 200);
  const listed = (await call('GET', '/v1/tokens', long.body.token as string)).body.tokens as Json[];
  t.ok(listed.some((x) => x.id === id) && listed.every((x) => x.username === 'webop' && !('hash' in x)), 'own tokens, without hashes');
  t.same((await call('POST', `/v1/tokens/${id}/revoke`, long.body.token as string)).body, { revoked: true });
  t.equal((await call('GET', '/v1/whoami', long.body.token as string, undefined, '127.0.0.11')).status, 401, 'refused at once');
});

t.test('passwd and remove: the old password stops working; removing a user revokes their tokens', async (t) => {
  const before = await login('webop', 'web-secret-1', '1h');
  t.equal((await admin('POST', '/v1/users/webop/password', { password: 'web-secret-2' })).status, 200);
  t.equal((await login('webop', 'web-secret-1', undefined, '127.0.0.20')).status, 401);
  t.equal((await login('webop', 'web-secret-2', undefined, '127.0.0.20')).status, 200);
  t.equal((await admin('POST', '/v1/users/webop/remove')).status, 200);
  t.equal((await call('GET', '/v1/whoami', before.body.token as string, undefined, '127.0.0.21')).status, 401);
  t.equal((await admin('POST', '/v1/users/webop/remove')).body.code, 'BRINE_ERR_MASTER_NO_USER');
});

t.test('the audit trail: sign-ins, user and token changes, refusals; secrets redacted; filters', async (t) => {
  await master.store.flush();
  const all = (await admin('GET', '/v1/audit?limit=500')).body.audit as Json[];
  const of = (action: string) => all.filter((a) => a.action === action);
  t.ok(
    of('signin').some((a) => a.username === 'webop' && a.outcome === 'ok'),
    'a good sign-in',
  );
  t.ok(
    of('signin').some((a) => a.username === 'webop' && a.outcome === 'refused 401'),
    'a failed one',
  );
  const added = of('user.add')[0]!;
  t.equal(added.username, 'api', 'done by the bootstrap token holder');
  t.same(added.args, { name: 'webop', password: '[redacted]' });
  t.notMatch(JSON.stringify(all), /web-secret|brn_/, 'no password or token anywhere');
  t.ok(of('token.revoke').length >= 1);
  const refused = all.find((a) => a.outcome === 'refused 403: missing @wheel')!;
  t.equal(refused.username, 'webop');
  t.equal(refused.source, '127.0.0.1');
  const byUser = (await admin('GET', '/v1/audit?user=webop&action=token')).body.audit as Json[];
  t.ok(byUser.length > 0 && byUser.every((a) => a.username === 'webop' && String(a.action).startsWith('token.')));
  t.same((await admin('GET', '/v1/audit?since=2999-01-01')).body.audit, []);
});

t.test('a ttl in seconds or with a unit; a bad one is a coded 400', async (t) => {
  await admin('POST', '/v1/users', { name: 'ttl-user', password: 'ttl-password' });
  const secs = await call('POST', '/v1/tokens', master.token, { ttl: 90 } as unknown as Json);
  t.equal(secs.status, 200, 'a number of seconds');
  const left = Date.parse(secs.body.expires_at as string) - Date.now();
  t.ok(left > 80_000 && left <= 90_000);
  const bad = await call('POST', '/v1/tokens', master.token, { ttl: 'soon' });
  t.equal(bad.status, 400);
  t.match(bad.body.message, /bad ttl 'soon'/);
  const capped = await call('POST', '/v1/tokens', master.token, { ttl: '30d' });
  t.ok(Date.parse(capped.body.expires_at as string) - Date.now() <= 43200_000, 'at most token_expire');
});

t.test('a console session ends at once when its user is removed or the token it signed in with is revoked', async (t) => {
  await admin('POST', '/v1/users', { name: 'consoleop', password: 'console-password' });
  const session = async (payload: Json) => {
    const r = await master.api.inject({ method: 'POST', url: '/ui/login', payload, remoteAddress: '127.0.0.30' });
    t.equal(r.statusCode, 200);
    return `${SESSION_COOKIE}=${r.cookies.find((c) => c.name === SESSION_COOKIE)!.value}`;
  };
  const whoami = async (cookie: string) =>
    (await master.api.inject({ method: 'GET', url: '/v1/whoami', headers: { cookie }, remoteAddress: '127.0.0.30' })).statusCode;
  const byPassword = await session({ username: 'consoleop', password: 'console-password' });
  const tok = (await login('consoleop', 'console-password', '1h', '127.0.0.30')).body;
  const byToken = await session({ token: tok.token as string });
  t.equal(await whoami(byPassword), 200);
  t.equal(await whoami(byToken), 200);
  await call('POST', `/v1/tokens/${tok.id as string}/revoke`, tok.token as string);
  t.equal(await whoami(byToken), 401, 'the token it signed in with is revoked');
  t.equal(await whoami(byPassword), 200, 'the password session stands');
  await admin('POST', '/v1/users/consoleop/remove');
  t.equal(await whoami(byPassword), 401, 'its user is removed');
});
