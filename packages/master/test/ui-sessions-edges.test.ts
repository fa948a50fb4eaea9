import { readFileSync } from 'node:fs';
import t from 'tap';
import { CSRF_HEADER, UiSessions } from '../src/ui-sessions.js';

// Edges of the console's session table that ui-sessions.test.ts leaves open: the sweep of expired
// sessions at sign-in keeps one at its last millisecond, and the header name the server checks is
// the one the console's script sends.

const HOUR = 3600_000;

t.test('signing in at the last millisecond of another session does not end it', async (t) => {
  let now = 1_000_000;
  const s = new UiSessions(() => now);
  const a = s.create();
  now += 12 * HOUR;
  s.create();
  t.equal(s.get(a.id), a.session, 'still valid: it expires after this millisecond');
});

t.test('the CSRF header is the one the console sends', async (t) => {
  t.equal(CSRF_HEADER, 'x-csrf-token');
  const app = readFileSync(new URL('../ui/app.js', import.meta.url), 'utf8');
  t.ok(app.includes(`headers['${CSRF_HEADER}']`), 'app.js sets it');
});
