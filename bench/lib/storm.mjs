// The reconnect storm (bench/swarm.mjs --storm): with N agents connected, a job whose returns are
// still in flight (test.sleep on every minion), the master is SIGKILLed and started again on the
// same data dir and port. Every agent reconnects at once (with its backoff and jitter) and resends
// what it spooled. Prints one JSON line:
//   restart_to_master_ready_ms     the new master process spawned -> its ready line
//   restart_to_all_connected_ms    -> every agent welcomed again
//   restart_to_ping_ok_ms          -> a test.ping with every return stored (tried again until so)
//   restart_to_returns_stored_ms   -> every minion's return of the job in flight stored
//   lost_returns                   minions whose return of that job was not stored within 120 s
//   returns_stored_before_kill     of that job, stored before the kill (should be 0: in flight)
//   master_cpu_s, event_loop_max_block_ms (and _active_ms, _cpu_ms: see swarm.mjs), master_rss_mb   of the new
//                                  master, its ready line to ping ok
//   agents          reconnects, handshake timeouts and failed tries during the storm
// BENCH_STORM_SLEEP: the in-flight job's length in seconds (default 3).
import Database from 'better-sqlite3';
import { killMaster, startMaster } from './cluster.mjs';

const pause = (ms) => new Promise((r) => setTimeout(r, ms));

/** Runs the storm; returns the new master (the caller stops it). */
export async function storm({ n, dir, master, agents, ready, dbFile }) {
  const sleepS = Number(process.env.BENCH_STORM_SLEEP ?? 3);
  const before = await agents.stats();
  const { jid } = await master.client.post('/v1/jobs', { tgt: '*', fun: 'test.sleep', arg: [sleepS], wait: false, timeout: 300 });
  // every minion runs the job (polling the agents' counters, not the master): then kill
  while ((await agents.stats(jid)).jobs_started < n) await pause(20);
  const returns = (db) => db.prepare('SELECT count(*) AS n FROM returns WHERE jid = ?').pluck().get(jid);
  let db = new Database(dbFile, { readonly: true });
  const storedBeforeKill = returns(db);
  db.close();
  ready.mark();
  await killMaster(master);

  const t0 = performance.now();
  const next = await startMaster(dir, '', { port: master.ready.port });
  const masterReadyMs = performance.now() - t0;
  await next.loopMax(); // from the ready line on
  const cpu0 = next.cpu();
  await ready.all();
  const allConnectedMs = performance.now() - t0;
  let attempts = 0;
  for (;;) {
    attempts++;
    const res = await next.client.post('/v1/jobs', { tgt: '*', fun: 'test.ping', wait: true, timeout: 60 });
    if (Object.keys(res.returns).length === n) break;
  }
  const pingOkMs = performance.now() - t0;
  const cpuS = (next.cpu() - cpu0) / 1000;
  const loop = await next.loopMax();
  const rss = next.rss();

  db = new Database(dbFile, { readonly: true });
  let stored = returns(db);
  while (stored < n && performance.now() - t0 < 120_000) {
    await pause(50);
    stored = returns(db);
  }
  const storedMs = performance.now() - t0;
  db.close();
  const after = await agents.stats();
  console.log(
    JSON.stringify({
      bench: 'storm',
      minions: n,
      in_flight_job_s: sleepS,
      restart_to_master_ready_ms: Math.round(masterReadyMs),
      restart_to_all_connected_ms: Math.round(allConnectedMs),
      restart_to_ping_ok_ms: Math.round(pingOkMs),
      ping_attempts: attempts,
      restart_to_returns_stored_ms: stored === n ? Math.round(storedMs) : null,
      returns_stored_before_kill: storedBeforeKill,
      returns_stored: stored,
      lost_returns: n - stored,
      master_cpu_s: Math.round(cpuS * 100) / 100,
      event_loop_max_block_ms: loop.wall,
      event_loop_max_block_active_ms: loop.active,
      event_loop_max_block_cpu_ms: loop.cpu,
      event_loop_max_block_gc_ms: loop.gc,
      master_rss_mb: Math.round(rss / 1024),
      agents: {
        reconnects: after.reconnects - before.reconnects,
        handshake_timeouts: after.handshake_timeouts - before.handshake_timeouts,
        failed_tries: after.unreachable - before.unreachable,
        lost: after.lost - before.lost,
        reasons: diffReasons(after.reasons, before.reasons),
      },
    }),
  );
  return next;
}

function diffReasons(after, before) {
  const out = {};
  for (const [k, v] of Object.entries(after)) if (v - (before[k] ?? 0) > 0) out[k] = v - (before[k] ?? 0);
  return out;
}
