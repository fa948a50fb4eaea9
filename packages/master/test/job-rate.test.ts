import t from 'tap';
import { PROTOCOL_VERSION } from '@brine/protocol';
import { JOBS_PER_MINUTE, requestHandler, type RequestDeps } from '../src/requests.js';
import type { Session } from '../src/hub.js';

/**
 * A minion records jobs for itself (its schedules' runs, brine call) with `job.new`; a hostile one
 * must not fill the store with them. Each minion id has its own allowance, so one flooding minion
 * leaves another's schedules alone.
 */
t.test('job.new: at most JOBS_PER_MINUTE a minute per minion id, refused with a coded error past it', async (t) => {
  const recorded: string[] = [];
  const handle = requestHandler({
    recordCall: async (minion) => {
      recorded.push(minion);
      return String(recorded.length);
    },
    isExpected: async () => false,
  } as unknown as RequestDeps);
  const session = (minion: string) => ({ minion, call: false, running: new Set<string>() }) as unknown as Session;
  const ask = (s: Session) =>
    handle(s, { v: PROTOCOL_VERSION, type: 'req', id: 'r', op: 'job.new', args: { fun: 'test.ping', arg: [], kwarg: {}, schedule: 'ping' } });
  const flooder = session('m1');
  for (let i = 0; i < JOBS_PER_MINUTE; i++) await ask(flooder);
  await t.rejects(ask(flooder), { code: 'BRINE_ERR_MASTER_JOB_RATE', message: /m1 records jobs for itself faster than 600 a minute/ });
  t.equal(recorded.length, JOBS_PER_MINUTE, 'the refused one was not recorded');
  t.same(await ask(session('m2')), { jid: String(JOBS_PER_MINUTE + 1) }, 'another minion still records its own');
});
