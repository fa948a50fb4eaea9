import t from 'tap';
import type { TLSSocket } from 'node:tls';
import { rawSession } from '../../../test/helpers/raw-session.js';
import { ACK_HOLD_MS } from '../src/ack-batch.js';
import { inProcessMaster } from './helpers/in-process-master.js';

/**
 * The master acknowledges a stored return with a frame of its own, a TLS write per minion and
 * job. An ack ready when the next job goes to that minion rides in the job's write: the minion
 * reads both from one TLS record, the ack first. An ack nothing follows still arrives.
 */
const m = inProcessMaster(t, 'ack-batch', { auto_accept: true });
// as in a fleet's burst: every ack is held (a few minions are acked at once)
t.before(() => {
  m.get().jobs.acks.holdAfter = 0;
});

function retOf(jid: string): Record<string, unknown> {
  const now = new Date().toISOString();
  return { v: 1, type: 'ret', jid, fun: 'test.ping', success: true, retcode: 0, return: true, started: now, finished: now };
}

t.test('an ack held when the next job goes out shares its TLS record, ahead of the job', async (t) => {
  const master = m.get();
  const c = await rawSession(master.port, 'held1');
  t.teardown(() => c.ws.terminate());
  // each 'data' of a TLS socket is what one record decrypted to
  const records: string[] = [];
  (c.ws as unknown as { _socket: TLSSocket })._socket.on('data', (d: Buffer) => records.push(d.toString('latin1')));
  const first = await master.jobs.publish({ tgt: 'held1', fun: 'test.ping' });
  t.match(await c.next('job'), { jid: first.jid });
  // the next job is published as the return is told on the bus: after its commit, with its ack due
  const second = new Promise<string>((resolve) => {
    const off = master.events.subscribe(`brine/job/${first.jid}/ret/held1`, () => {
      off();
      master.jobs.publish({ tgt: 'held1', fun: 'test.ping' }).then((p) => resolve(p.jid), t.error);
    });
  });
  c.send(retOf(first.jid));
  const jid2 = await second;
  t.match(await c.next('job'), { jid: jid2 }, 'the second job arrives');
  const kinds = c.inbox.map((f) => f.type);
  t.same(kinds, ['ack'], 'its ack came before the job (and nothing else)');
  t.match(await c.next('ack'), { jid: first.jid });
  const shared = records.find((r) => r.includes(`"jid":"${first.jid}"`) && r.includes(`"jid":"${jid2}"`));
  t.ok(shared, 'the ack and the next job were one TLS record');
  t.ok(shared && shared.indexOf('"type":"ack"') < shared.indexOf('"type":"job"'), 'the ack first');
  t.equal(master.jobs.acks.stats.acks_with_frame, 1, 'counted as an ack sent with a frame');
  c.send(retOf(jid2));
  t.match(await c.next('ack', ACK_HOLD_MS + 5000), { jid: jid2 }, 'an ack nothing follows arrives on its own');
});

t.test('a few acks are sent at once, not held', async (t) => {
  const master = m.get();
  master.jobs.acks.holdAfter = 100;
  t.teardown(() => {
    master.jobs.acks.holdAfter = 0;
  });
  const c = await rawSession(master.port, 'held3');
  t.teardown(() => c.ws.terminate());
  const first = await master.jobs.publish({ tgt: 'held3', fun: 'test.ping' });
  await c.next('job');
  const acked = new Promise<void>((resolve) => {
    const off = master.events.subscribe(`brine/job/${first.jid}/ret/held3`, () => {
      off();
      resolve();
    });
  });
  const before = master.jobs.acks.stats.acks_with_frame;
  c.send(retOf(first.jid));
  await acked;
  const { jid } = await master.jobs.publish({ tgt: 'held3', fun: 'test.ping' });
  t.match(await c.next('ack'), { jid: first.jid });
  t.match(await c.next('job'), { jid });
  t.equal(master.jobs.acks.stats.acks_with_frame, before, 'the ack went on its own, not held for the job');
});

t.test('acks of many returns of one minion arrive, in order, once the burst is stored', async (t) => {
  const master = m.get();
  const c = await rawSession(master.port, 'held2');
  t.teardown(() => c.ws.terminate());
  const jids: string[] = [];
  for (let i = 0; i < 5; i++) {
    const { jid } = await master.jobs.publish({ tgt: 'held2', fun: 'test.ping' });
    await c.next('job');
    jids.push(jid);
  }
  for (const jid of jids) c.send(retOf(jid));
  const acked: string[] = [];
  for (let i = 0; i < jids.length; i++) acked.push((await c.next('ack', ACK_HOLD_MS + 5000)).jid as string);
  t.same(acked, jids, 'every return acknowledged, in the order they came');
  const report = await master.jobs.report(jids[4]!);
  t.equal(report?.returns.held2?.return, true, 'stored');
});

t.test('an ack held through a pause between jobs rides with the next job, and one nothing follows goes out after the hold', async (t) => {
  const master = m.get();
  const c = await rawSession(master.port, 'pause1');
  t.teardown(() => c.ws.terminate());
  const first = await master.jobs.publish({ tgt: 'pause1', fun: 'test.ping' });
  await c.next('job');
  const stored = new Promise<void>((resolve) => {
    const off = master.events.subscribe(`brine/job/${first.jid}/ret/pause1`, () => {
      off();
      resolve();
    });
  });
  c.send(retOf(first.jid));
  await stored;
  // a script's next job, or a ping-idle bench's next ping, comes a moment later
  await new Promise((r) => setTimeout(r, 600));
  t.same(c.inbox, [], 'the ack is still held');
  const before = master.jobs.acks.stats.acks_with_frame;
  const second = await master.jobs.publish({ tgt: 'pause1', fun: 'test.ping' });
  t.match(await c.next(), { type: 'ack', jid: first.jid }, 'the ack comes first');
  t.match(await c.next(), { type: 'job', jid: second.jid }, 'with the job');
  t.equal(master.jobs.acks.stats.acks_with_frame, before + 1, 'in one write');
  c.send(retOf(second.jid));
  t.match(await c.next('ack', ACK_HOLD_MS + 5000), { jid: second.jid }, 'an ack nothing follows arrives on its own');
});

t.test('acks held during a burst of returns longer than a second are not sent until it ends', async (t) => {
  const master = m.get();
  const c = await rawSession(master.port, 'burst1');
  t.teardown(() => c.ws.terminate());
  const jids: string[] = [];
  for (let i = 0; i < 15; i++) {
    const { jid } = await master.jobs.publish({ tgt: 'burst1', fun: 'test.ping' });
    await c.next('job');
    jids.push(jid);
  }
  const last = jids[jids.length - 1]!;
  const stored = new Promise<void>((resolve) => {
    const off = master.events.subscribe(`brine/job/${last}/ret/burst1`, () => {
      off();
      resolve();
    });
  });
  // a fleet's returns, a few every 100 ms for 1.5 s (a ping of 10,000 minions takes about that)
  for (const jid of jids) {
    c.send(retOf(jid));
    await new Promise((r) => setTimeout(r, 100));
  }
  await stored;
  t.same(
    c.inbox.filter((f) => f.type === 'ack'),
    [],
    'no ack was written while the returns kept coming',
  );
  const acked: string[] = [];
  for (let i = 0; i < jids.length; i++) acked.push((await c.next('ack', ACK_HOLD_MS + 5000)).jid as string);
  t.same(acked, jids, 'then every return is acknowledged, in order');
});

t.test('the longest hold counts from the oldest ack still held, not from one a job frame carried', async (t) => {
  const master = m.get();
  const acks = master.jobs.acks as unknown as { holdMs: number };
  const hold = acks.holdMs;
  acks.holdMs = 1000;
  t.teardown(() => {
    acks.holdMs = hold;
  });
  const c = await rawSession(master.port, 'carry1');
  t.teardown(() => c.ws.terminate());
  const storedRet = (jid: string) =>
    new Promise<void>((resolve) => {
      const off = master.events.subscribe(`brine/job/${jid}/ret/carry1`, () => {
        off();
        resolve();
      });
    });
  const first = await master.jobs.publish({ tgt: 'carry1', fun: 'test.ping' });
  await c.next('job');
  const firstStored = storedRet(first.jid);
  c.send(retOf(first.jid));
  await firstStored;
  // the next job of a sequence, 400 ms later, carries the first ack
  await new Promise((r) => setTimeout(r, 400));
  const second = await master.jobs.publish({ tgt: 'carry1', fun: 'test.ping' });
  t.match(await c.next(), { type: 'ack', jid: first.jid });
  t.match(await c.next(), { type: 'job', jid: second.jid });
  const secondStored = storedRet(second.jid);
  c.send(retOf(second.jid));
  await secondStored;
  // the first ack's hold would have ended here; the second's has 600 ms or more to go
  await new Promise((r) => setTimeout(r, 800));
  t.same(c.inbox, [], "the second ack is held for a frame: the first one's hold did not send it");
  t.match(await c.next('ack', 5000), { jid: second.jid }, 'it goes out once its own hold ends');
});
