import t from 'tap';
import type { TLSSocket } from 'node:tls';
import { rawSession } from '../../../test/helpers/raw-session.js';
import { inProcessMaster } from './helpers/in-process-master.js';

/**
 * An ack held in a burst that no job frame follows leaves with the heartbeat's ping to that
 * minion (a write the master makes anyway), not in a TLS write of its own. The ping interval is
 * short here so the test does not wait the default 30 s.
 */
const m = inProcessMaster(t, 'ack-heartbeat', { auto_accept: true, ping_interval: 1 });
t.before(() => {
  m.get().jobs.acks.holdAfter = 0;
});

// a WebSocket ping from a server: FIN + opcode 9, unmasked, no payload
const PING = '\x89\x00';

t.test('a held ack nothing follows rides in the heartbeat ping’s TLS record, ahead of the ping', async (t) => {
  const master = m.get();
  const c = await rawSession(master.port, 'beat1');
  t.teardown(() => c.ws.terminate());
  const records: string[] = [];
  (c.ws as unknown as { _socket: TLSSocket })._socket.on('data', (d: Buffer) => records.push(d.toString('latin1')));
  const { jid } = await master.jobs.publish({ tgt: 'beat1', fun: 'test.ping' });
  await c.next('job');
  const now = new Date().toISOString();
  c.send({ v: 1, type: 'ret', jid, fun: 'test.ping', success: true, retcode: 0, return: true, started: now, finished: now });
  t.match(await c.next('ack', 20_000), { jid }, 'the ack arrives');
  const withAck = records.find((r) => r.includes(`"type":"ack","jid":"${jid}"`));
  t.ok(withAck?.includes(PING), 'the ack and a heartbeat ping were one TLS record');
  t.ok(withAck && withAck.indexOf('"type":"ack"') < withAck.indexOf(PING), 'the ack first');
  t.equal(master.jobs.acks.stats.acks_alone, 0, 'no ack written on its own');
});

t.test('a minion that does not answer the heartbeat is still cut off', async (t) => {
  const master = m.get();
  const c = await rawSession(master.port, 'beat2');
  // no pong from now on: ws answers pings on its own unless told otherwise
  (c.ws as unknown as { _receiver: { removeAllListeners(e: string): void } })._receiver.removeAllListeners('ping');
  const closed = new Promise<void>((resolve) => c.ws.once('close', () => resolve()));
  await closed;
  t.pass('the silent session was terminated');
});
