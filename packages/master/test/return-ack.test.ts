import t from 'tap';
import { rawSession } from '../../../test/helpers/raw-session.js';
import { inProcessMaster } from './helpers/in-process-master.js';

/**
 * A minion resends a return until the master acknowledges it (its spool keeps it). A return the
 * master already stored (the first ack was lost with the connection) must be acknowledged again,
 * or the minion resends it forever; it is stored once.
 */
const m = inProcessMaster(t, 'return-ack', { auto_accept: true });

t.test('a duplicate return of an already stored result gets its ack, and is stored once', async (t) => {
  const master = m.get();
  const c = await rawSession(master.port, 'ack1');
  t.teardown(() => c.ws.terminate());
  const { jid } = await master.jobs.publish({ tgt: 'ack1', fun: 'test.ping' });
  t.match(await c.next('job'), { jid }, 'the job reaches the raw minion');
  const now = new Date().toISOString();
  const ret = { v: 1, type: 'ret', jid, fun: 'test.ping', success: true, retcode: 0, return: true, started: now, finished: now };
  c.send(ret);
  t.match(await c.next('ack'), { jid }, 'the first return is acknowledged');
  c.send(ret);
  t.match(await c.next('ack'), { jid }, 'the same return sent again is acknowledged again');
  const report = await master.jobs.report(jid);
  t.same(Object.keys(report?.returns ?? {}), ['ack1'], 'stored once, for its minion');
  t.equal(report?.returns.ack1?.return, true);
});
