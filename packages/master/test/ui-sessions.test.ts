import t from 'tap';
import { UiSessions } from '../src/ui-sessions.js';

// The console's session table on its own, with an injected clock: lifetime, sign-out, the bound
// on sessions and the CSRF comparison.

const HOUR = 3600_000;

t.test('a session lasts 12 hours to the millisecond', async (t) => {
  let now = 1_000_000;
  const s = new UiSessions(() => now);
  const { id, session } = s.create();
  t.equal(session.expires, now + 12 * HOUR);
  t.match(id, /^[A-Za-z0-9_-]{43}$/, '32 random bytes');
  t.not(session.csrf, id);
  now += 12 * HOUR;
  t.equal(s.get(id), session, 'valid at its last millisecond');
  now += 1;
  t.equal(s.get(id), undefined, 'expired after');
  now -= 1;
  t.equal(s.get(id), undefined, 'and gone: an expired session does not come back');
});

t.test('sign-out ends only that session; unknown and missing ids find nothing', async (t) => {
  const s = new UiSessions(() => 0);
  const a = s.create();
  const b = s.create();
  t.not(a.id, b.id);
  t.not(a.session.csrf, b.session.csrf);
  s.end(a.id);
  s.end(undefined);
  t.equal(s.get(a.id), undefined);
  t.equal(s.get(b.id), b.session);
  t.equal(s.get(undefined), undefined);
  t.equal(s.get(''), undefined);
  t.equal(s.get('nope'), undefined);
});

t.test('at most 1000 sessions: the oldest goes first', async (t) => {
  let now = 0;
  const s = new UiSessions(() => now);
  const ids: string[] = [];
  for (let i = 0; i < 1001; i++) {
    now++;
    ids.push(s.create().id);
  }
  t.equal(s.get(ids[0]), undefined, 'the first was dropped');
  t.ok(s.get(ids[1]), 'the second is kept');
  t.ok(s.get(ids[1000]), 'the newest is kept');
});

t.test('the CSRF token must match exactly', async (t) => {
  const want = 'abcdef';
  t.equal(UiSessions.csrfMatches('abcdef', want), true);
  t.equal(UiSessions.csrfMatches('abcdeg', want), false);
  t.equal(UiSessions.csrfMatches('abcde', want), false);
  t.equal(UiSessions.csrfMatches('abcdefg', want), false);
  t.equal(UiSessions.csrfMatches(undefined, want), false);
  t.equal(UiSessions.csrfMatches(['abcdef'], want), false, 'a repeated header is an array');
});
