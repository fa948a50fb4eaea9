import t from 'tap';
import type { Master } from '../src/master.js';
import { inProcessMaster } from './helpers/in-process-master.js';
import { CSRF_HEADER, SESSION_COOKIE, UiSessions } from '../src/ui-sessions.js';

/**
 * The console's auth through the master's own API (fastify `inject`, a real master in this
 * process on a temp dir): a session cookie alone reads; anything that changes state needs the
 * session's CSRF token too; sign-out ends the session on the master, not only in the browser.
 */
const server = inProcessMaster(t, 'console-auth');
let master: Master;
t.before(() => {
  master = server.get();
});

async function signIn(): Promise<{ cookie: string; csrf: string }> {
  const r = await master.api.inject({ method: 'POST', url: '/ui/login', payload: { token: master.token } });
  if (r.statusCode !== 200) throw new Error(`sign-in: ${r.statusCode} ${r.body}`);
  const c = r.cookies.find((k) => k.name === SESSION_COOKIE);
  if (!c) throw new Error('no session cookie');
  return { cookie: `${SESSION_COOKIE}=${c.value}`, csrf: (r.json() as { csrf: string }).csrf };
}

/** A pending key to accept: the state-changing call the tests make. */
let keys = 0;
async function pendingKey(): Promise<string> {
  const id = `m${++keys}`;
  await master.store.insertKey(id, `pub-${id}`, `fp-${id}`, 'pending');
  return id;
}
const keyState = async (id: string) => (await master.store.keysOf(id))[0]?.state;
const accept = (id: string, headers: Record<string, string>) =>
  master.api.inject({ method: 'POST', url: '/v1/keys/accept', headers: { 'content-type': 'application/json', ...headers }, payload: { match: id } });

t.test('a state-changing call with the session cookie needs the CSRF token of that session', async (t) => {
  const s = await signIn();
  const other = await signIn();
  const id = await pendingKey();
  const wrong = 'x'.repeat(s.csrf.length);
  for (const [what, headers] of [
    ['no CSRF header', { cookie: s.cookie }],
    ['a wrong value of the right length', { cookie: s.cookie, [CSRF_HEADER]: wrong }],
    ['a wrong value of another length', { cookie: s.cookie, [CSRF_HEADER]: 'abc' }],
    ["another session's token", { cookie: s.cookie, [CSRF_HEADER]: other.csrf }],
  ] as Array<[string, Record<string, string>]>) {
    const r = await accept(id, headers);
    t.equal(r.statusCode, 403, what);
    t.equal((r.json() as { code: string }).code, 'BRINE_ERR_MASTER_CSRF', what);
  }
  t.equal(await keyState(id), 'pending', 'no refused call changed the key');
  const ok = await accept(id, { cookie: s.cookie, [CSRF_HEADER]: s.csrf });
  t.equal(ok.statusCode, 200, ok.body);
  t.equal(await keyState(id), 'accepted');
  t.equal((await master.api.inject({ method: 'GET', url: '/v1/keys', headers: { cookie: s.cookie } })).statusCode, 200, 'reading needs no CSRF header');
});

t.test('the bearer token still works without a session or CSRF header', async (t) => {
  const id = await pendingKey();
  const r = await accept(id, { authorization: `Bearer ${master.token}` });
  t.equal(r.statusCode, 200, r.body);
  t.equal(await keyState(id), 'accepted');
  t.equal((await accept(id, { authorization: 'Bearer wrong' })).statusCode, 401);
});

t.test('sign-out ends the session on the master: the old cookie is refused afterwards', async (t) => {
  const s = await signIn();
  t.equal((await master.api.inject({ method: 'GET', url: '/ui/session', headers: { cookie: s.cookie } })).statusCode, 200);
  const out = await master.api.inject({ method: 'POST', url: '/ui/logout', headers: { cookie: s.cookie } });
  t.equal(out.statusCode, 200);
  // a copy of the cookie kept from before (the browser dropped it; an attacker may not have)
  t.equal((await master.api.inject({ method: 'GET', url: '/ui/session', headers: { cookie: s.cookie } })).statusCode, 401);
  t.equal((await master.api.inject({ method: 'GET', url: '/v1/keys', headers: { cookie: s.cookie } })).statusCode, 401);
  const id = await pendingKey();
  const r = await accept(id, { cookie: s.cookie, [CSRF_HEADER]: s.csrf });
  t.equal(r.statusCode, 401);
  t.equal(await keyState(id), 'pending');
});

t.test('a session expires 12 hours after sign-in', async (t) => {
  const clock = { now: 1_000_000 };
  const sessions = new UiSessions(() => clock.now);
  const { id, session } = sessions.create();
  clock.now += 12 * 3600_000;
  t.equal(sessions.get(id), session, 'still valid at 12 hours');
  clock.now += 1;
  t.equal(sessions.get(id), undefined, 'gone past 12 hours');
  clock.now += 3600_000;
  t.equal(sessions.get(id), undefined, 'and stays gone');
  const again = sessions.create();
  sessions.end(again.id);
  t.equal(sessions.get(again.id), undefined, 'an ended session is gone at once');
  t.equal(sessions.get(undefined), undefined);
});

t.test('the CSRF check compares the whole token', async (t) => {
  const want = 'abcdefgh';
  t.ok(UiSessions.csrfMatches(want, want));
  for (const given of ['abcdefgX', 'Xbcdefgh', 'abcdefg', 'abcdefghi', '', undefined, ['abcdefgh']])
    t.notOk(UiSessions.csrfMatches(given, want), JSON.stringify(given));
});
