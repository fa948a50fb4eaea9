import t from 'tap';
import { eventFilter } from '../src/auth/event-filter.js';

/** What a user without @jobs sees of the bus: the jobs and minions their permissions reach, nothing else. */
t.test('events of visible jobs and minions pass; other jobs, keys and auth do not', async (t) => {
  const jobs: Record<string, string[]> = { '20260101000000000001': ['web1', 'web2'], '20260101000000000002': ['web1', 'db1'] };
  let lookups = 0;
  const visible = eventFilter(
    async (m) => m.startsWith('web'),
    async (jid) => {
      lookups++;
      return jobs[jid];
    },
  );
  const ev = (tag: string) => ({ tag, data: {}, stamp: '' });
  t.equal(await visible(ev('brine/job/20260101000000000001/new')), true, 'a job on web minions only');
  t.equal(await visible(ev('brine/job/20260101000000000001/ret/web2')), true);
  t.equal(lookups, 1, 'one look-up per job');
  t.equal(await visible(ev('brine/job/20260101000000000002/ret/web1')), false, 'a job that also reaches db1');
  t.equal(await visible(ev('brine/job/20260101000000000009/new')), false, 'a job the store does not know');
  t.equal(await visible(ev('brine/minion/web1/start')), true);
  t.equal(await visible(ev('brine/minion/db1/start')), false);
  t.equal(await visible(ev('brine/auth')), false, 'keys and auth stay with @jobs');
  t.equal(await visible(ev('myco/deploy')), false);
});
