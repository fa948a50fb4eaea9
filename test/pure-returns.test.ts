import { mkdtempSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import os from 'node:os';
import path from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import Database from 'better-sqlite3';
import t from 'tap';
import { createLogger } from '@brine/core';
import { loadMasterConfig, startMaster, type Master } from '@brine/master';
import { loadMinionConfig, MinionAgent } from '@brine/minion';

/**
 * A pure job's return (test.ping) is held in the agent's memory until the master acks it, not
 * written to spool.db: recomputable, it is resent after a reconnect like the spooled returns
 * and written to the file by a graceful stop, so a planned restart loses none. A real master
 * and agent in this process (real TLS WebSocket, real SQLite); the master holds its acks (as in
 * a fleet's burst) until the test lets them go.
 */
const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-pure-returns-'));
const data = path.join(dir, 'minion');
const log = createLogger({ level: 'silent' });
let master: Master;
let agent: MinionAgent | undefined;

t.before(async () => {
  master = await startMaster(
    loadMasterConfig(undefined, {
      data_dir: path.join(dir, 'master'),
      interface: '127.0.0.1',
      port: 0,
      api_port: 0,
      compile_workers: 0,
      auto_accept: true,
      file_roots: { base: [path.join(dir, 'states')] },
      pillar_roots: {},
    }),
    log,
  );
});
t.teardown(async () => {
  await agent?.stop();
  await master.close();
  rmSync(dir, { recursive: true, force: true });
});

function holdAcks(hold: boolean): void {
  master.jobs.acks.holdAfter = hold ? 0 : 1000;
  master.jobs.acks.holdMs = hold ? 600_000 : 5000;
}

/** The test's minion, not started. */
function newAgent(): MinionAgent {
  const config = loadMinionConfig(undefined, {
    id: 'p1',
    master: '127.0.0.1',
    master_port: master.port,
    data_dir: data,
    recon_default: 0.2,
    recon_max: 1,
    log_level: 'silent',
  });
  return new MinionAgent(config, { log });
}

async function startAgent(): Promise<MinionAgent> {
  const a = newAgent();
  const ready = once(a, 'ready');
  a.start();
  await ready;
  return a;
}

/** A ping of p1, its return stored by the master. */
async function pingStored(): Promise<string> {
  const { jid } = await master.jobs.publish({ tgt: 'p1', fun: 'test.ping' });
  await new Promise<void>((resolve) => {
    const off = master.events.subscribe(`brine/job/${jid}/ret/p1`, () => {
      off();
      resolve();
    });
    master.store.returnsOf(jid).then((r) => r.length > 0 && resolve(), t.error);
  });
  return jid;
}

const acked = (a: MinionAgent, jid: string) =>
  new Promise<void>((resolve) => {
    const on = (j: string) => {
      if (j !== jid) return;
      a.off('acked', on);
      resolve();
    };
    a.on('acked', on);
  });

const spoolRows = () => {
  const db = new Database(path.join(data, 'spool.db'), { readonly: true });
  try {
    return db.prepare('SELECT jid FROM spool UNION ALL SELECT jid FROM seen').all();
  } finally {
    db.close();
  }
};

t.test('an unacked ping return is held in memory, resent after a reconnect and stored once', async (t) => {
  agent = await startAgent();
  holdAcks(true);
  const jid = await pingStored();
  t.equal(agent.spooled(), 1, 'unacked');
  t.same(spoolRows(), [], 'neither its return nor a received mark is in spool.db');
  // the connection drops before the ack: the held ack is lost with it
  holdAcks(false);
  const back = once(agent, 'ready');
  master.hub.sessions.get('p1')!.ws.terminate();
  const ack = acked(agent, jid);
  await back;
  await ack;
  t.equal(agent.spooled(), 0, 'acked after the resend');
  t.equal((await master.store.returnsOf(jid)).length, 1, 'stored once');
});

t.test('a graceful stop writes unacked ping returns to spool.db; the restarted agent sends them', async (t) => {
  holdAcks(true);
  const jid = await pingStored();
  t.same(spoolRows(), [], 'held in memory while running');
  await agent!.stop();
  agent = undefined;
  t.same(spoolRows(), [{ jid }], 'written by the stop');
  holdAcks(false);
  const a = newAgent();
  agent = a;
  const ack = acked(a, jid);
  a.start();
  await ack;
  t.equal((await master.store.returnsOf(jid)).length, 1, 'stored once');
  t.equal(a.spooled(), 0);
  await nextTurn();
  t.same(spoolRows(), [], 'gone from spool.db after the ack');
});
