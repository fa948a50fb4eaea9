import { execFileSync } from 'node:child_process';
import net from 'node:net';
import t from 'tap';
import { Cluster } from './helpers/cluster.js';
import { until } from './helpers/proc.js';
import { RawClient } from './helpers/raw-client.js';

/** The listen backlog of the socket listening on `port` (ss shows it as Send-Q of a LISTEN row). */
function backlogOf(port: number): number | undefined {
  const out = execFileSync('ss', ['-Hltn', `sport = :${port}`], { encoding: 'utf8' });
  const row = out.trim().split('\n')[0]?.trim().split(/\s+/);
  return row ? Number(row[2]) : undefined;
}

t.test('the minion port listens with listen_backlog', async (t) => {
  const c = new Cluster({ master: { listen_backlog: 777 } });
  t.teardown(() => c.close());
  await c.start();
  t.equal(backlogOf(c.port), 777, 'the kernel holds 777 connections waiting for accept');
});

t.test('an overloaded master answers busy with a booked window; the minion comes back inside it', async (t) => {
  const c = new Cluster({ master: { max_admitting: 1 } });
  t.teardown(() => c.close());
  await c.start();
  // one connection waiting to authenticate fills the master's admission
  const holder = new RawClient(c.port);
  await holder.open();
  const m = c.startMinion('late', { recon_default: 0.1, recon_max: 0.2 });
  const busy = await m.waitEvent('master_busy');
  const [from, to] = [busy.retry_from as number, busy.retry_after as number];
  t.ok(typeof from === 'number' && to - from === 1, `a 1 s window: ${String(from)} to ${String(to)} s`);
  t.ok((busy.retry_in as number) >= from * 1000 && (busy.retry_in as number) <= to * 1000, `the retry (in ${String(busy.retry_in)} ms) falls inside it`);
  const refused = await c.master.waitEvent('minion_busy');
  t.same([refused.retry_from, refused.retry_after], [from, to], 'the master logged the window it sent');
  holder.ws.close();
  await m.waitEvent('minion_ready', 30_000);
  const stats = await c.client.get<{ busy_refused: number }>('/v1/stats');
  t.ok(stats.busy_refused >= 1, `busy_refused ${stats.busy_refused}`);
});

t.test('after a master restart the minion resumes its TLS session and spreads its return over the welcome window', async (t) => {
  // 1 minion at 0.25 minions/s: a 4 s window
  const c = new Cluster({ minions: ['r1'], master: { reconnect_rate: 0.25 } });
  t.teardown(() => c.close());
  await c.start();
  const m = c.minions.get('r1')!;
  const first = await c.master.waitFor((l) => l.msg === 'minion authenticated' && l.minion === 'r1', 'authenticated');
  t.equal(first.resumed, false, 'the first connection is a full handshake');
  const welcome = await m.waitEvent('minion_ready');
  t.equal(welcome.reconnect_window, 4, 'the welcome tells a window of connected / reconnect_rate seconds');
  const since = m.lines.length;
  await c.master.kill('SIGTERM');
  const lost = await m.waitEvent('disconnected', 15_000, since);
  t.ok((lost.retry_in as number) >= 0 && (lost.retry_in as number) <= 4000, `first retry in ${String(lost.retry_in)} ms, inside the 4 s window`);
  await c.startMaster();
  await m.waitEvent('minion_ready', 30_000, since);
  const again = await c.master.waitFor((l) => l.msg === 'minion authenticated' && l.minion === 'r1', 'authenticated again');
  t.equal(again.resumed, true, "the restarted master resumed the minion's TLS session (its ticket keys persist)");
  const r = await until(async () => {
    const res = await c.run('r1', 'test.ping');
    return res.returns.r1 ? res : undefined;
  }, 'a ping answered');
  t.same(r.returns.r1?.return, true, 'the resumed session works');
});

t.test('with TLS on the loop a storm is admitted a few handshakes at a time; idle connections cannot hold the door', async (t) => {
  const c = new Cluster({ master: { tls_thread: false, auth_timeout: 600, max_unauthenticated: 10_000, max_unauthenticated_per_address: 10_000 } });
  t.teardown(() => c.close());
  await c.start();
  // connections that never start TLS: the first ones take the admission slots (512), the rest queue unread
  const N = 700;
  const idle = Array.from({ length: N }, () => net.connect(c.port, '127.0.0.1'));
  t.teardown(() => idle.forEach((s) => s.destroy()));
  const queued = await until(async () => {
    const s = await c.client.get<{ admission_queue?: number; unauthenticated: number }>('/v1/stats');
    return s.unauthenticated === N && (s.admission_queue ?? 0) > 0 ? s.admission_queue : undefined;
  }, 'connections queued for admission');
  t.ok(queued! > 0 && queued! < N, `${queued} of ${N} wait their turn`);
  // a stalled handshake lets the next go after a while: a real minion still gets in behind them
  const m = c.startMinion('behind');
  await m.waitEvent('minion_ready', 30_000);
  const after = await c.client.get<{ admission_queue: number }>('/v1/stats');
  t.equal(after.admission_queue, 0, 'the queue drained');
});

t.test('with the TLS thread idle connections wait in their handshakes there, and a minion gets in beside them', async (t) => {
  const c = new Cluster({ master: { auth_timeout: 600, max_unauthenticated: 10_000, max_unauthenticated_per_address: 10_000 } });
  t.teardown(() => c.close());
  await c.start();
  const N = 700;
  const idle = Array.from({ length: N }, () => net.connect(c.port, '127.0.0.1'));
  t.teardown(() => idle.forEach((s) => s.destroy()));
  await Promise.all(idle.map((s) => new Promise((r) => s.once('connect', r))));
  const m = c.startMinion('beside');
  await m.waitEvent('minion_ready', 30_000);
  const s = await c.client.get<{ admission_queue: number; unauthenticated: number }>('/v1/stats');
  t.equal(s.unauthenticated, 0, 'none of them reached the loop: no TLS, no plain bytes');
  t.equal(s.admission_queue, 0, 'nothing waits for a turn');
  t.ok(
    idle.every((i) => !i.destroyed),
    `all ${N} are still held (auth_timeout 600 s)`,
  );
});
