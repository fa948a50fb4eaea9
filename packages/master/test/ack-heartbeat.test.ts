import t from 'tap';
import type { TLSSocket } from 'node:tls';
import { keyPair } from '../../../test/helpers/raw-client.js';
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

// the hold's timer, with a heartbeat, is only the net for sessions closed meanwhile
const slow = inProcessMaster(t, 'ack-heartbeat-net', { auto_accept: true, ping_interval: 600 });

t.test('the hold’s net leaves an open session’s acks to its ping and sends a closed one’s to its new session', async (t) => {
  const master = slow.get();
  master.jobs.acks.holdAfter = 0;
  const kp = keyPair();
  const c1 = await rawSession(master.port, 'net1', kp);
  const { jid } = await master.jobs.publish({ tgt: 'net1', fun: 'test.ping' });
  await c1.next('job');
  const stored = new Promise<void>((resolve) => {
    const off = master.events.subscribe(`brine/job/${jid}/ret/net1`, () => {
      off();
      resolve();
    });
  });
  const now = new Date().toISOString();
  c1.send({ v: 1, type: 'ret', jid, fun: 'test.ping', success: true, retcode: 0, return: true, started: now, finished: now });
  await stored;
  master.jobs.acks.flush();
  t.equal(master.jobs.acks.stats.acks_alone, 0, 'an open session’s ack stays held for its ping');
  const server = master.hub.sessions.get('net1')!;
  const gone = new Promise<void>((resolve) => server.ws.once('close', () => resolve()));
  c1.ws.terminate();
  await gone;
  const c2 = await rawSession(master.port, 'net1', kp);
  t.teardown(() => c2.ws.terminate());
  master.jobs.acks.flush();
  t.match(await c2.next('ack'), { jid }, 'the closed session’s ack goes to the new one');
  t.equal(master.jobs.acks.stats.acks_alone, 1);
});
