import { setImmediate as nextTurn } from 'node:timers/promises';
import t from 'tap';
import { rawSession } from '../../../test/helpers/raw-session.js';
import { inProcessMaster } from './helpers/in-process-master.js';

/**
 * The frames one read of a socket brings (a fleet's returns arriving together) are not all
 * handled in the turn that read them: the hub queues them and works them off a slice a turn.
 */
const m = inProcessMaster(t, 'frame-burst', { auto_accept: true });

t.test('a burst of frames is handled over several turns, each answered in order', async (t) => {
  const master = m.get();
  const c = await rawSession(master.port, 'burst1');
  t.teardown(() => c.ws.terminate());
  // every turn stops after its first 16 frames: turns are counted, not timed
  master.hub.inbox.turnMs = 0;
  const before = master.hub.stats.frames_in;
  for (let i = 0; i < 200; i++) c.send({ v: 1, type: 'ping', id: `p${i}` });
  let turnsWithQueued = 0;
  while (master.hub.stats.frames_in - before < 200) {
    if (master.hub.inbox.length > 0) turnsWithQueued++;
    await nextTurn();
  }
  t.ok(turnsWithQueued >= 2, `frames waited in the queue over ${turnsWithQueued} turns`);
  const ids: unknown[] = [];
  for (let i = 0; i < 200; i++) ids.push((await c.next('pong')).id);
  t.same(
    ids,
    Array.from({ length: 200 }, (_, i) => `p${i}`),
    'every ping answered, in order',
  );
});
