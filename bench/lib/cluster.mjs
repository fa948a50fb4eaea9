// The set-up the fleet benchmarks share: one real master process (TLS WebSockets, autosign) and
// N real minion agents (in this process, or spread over child processes: agent-procs.mjs), each
// with its own keys and data folder.
import { spawn } from 'node:child_process';
import { openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createLogger } from '@brine/core';
import Database from 'better-sqlite3';
import { MasterClient } from '@brine/master/client';
import { loadMinionConfig, MinionAgent } from '@brine/minion';

/**
 * Starts `brine master` with a config in `dir` (`extra` is YAML appended to it, e.g. file_roots).
 * Returns the process, its ready line, an API client, readers of its RSS (kB) and CPU time (ms),
 * and `loopMaxMs()`: the longest event-loop block since the previous call (a /metrics scrape).
 * `port` fixes the minion port (a restart on the same data dir comes back where the minions look).
 */
export async function startMaster(dir, extra = '', { fleet = true, port = 0 } = {}) {
  const cfg = path.join(dir, 'master.yaml');
  // a simulated fleet connects from one address, all at once: no caps on waiting connections
  const caps = fleet ? 'max_unauthenticated: 1000000\nmax_unauthenticated_per_address: 1000000\n' : '';
  writeFileSync(
    cfg,
    `interface: 127.0.0.1\nport: ${port}\napi_port: 0\ndata_dir: ${dir}/master\nautosign: ['*']\nping_interval: ${process.env.BENCH_PING_INTERVAL ?? 0}\nlog_level: warn\n${caps}${extra}`,
  );
  // BENCH_MASTER_NODE_ARGS: Node flags for the master alone (e.g. --cpu-prof --cpu-prof-dir=DIR)
  const nodeArgs = process.env.BENCH_MASTER_NODE_ARGS ?? '';
  // BENCH_MASTER_STDOUT: a file for the master's stdout (e.g. what --trace-gc prints), appended to
  const out = process.env.BENCH_MASTER_STDOUT ? openSync(process.env.BENCH_MASTER_STDOUT, 'a') : 'ignore';
  // started as a user's `brine master` is: the launcher (its Node flags: V8's helper threads
  // sized to the cores, 4 MB semi-spaces), with this node first on PATH; the longest block without the master's
  // waits for a core too (metrics.ts, loopCpuGauge)
  const proc = spawn('packages/cli/bin/brine', ['master', '--config', cfg, '--log-level', 'info'], {
    stdio: ['ignore', out, 'pipe'],
    env: { ...process.env, PATH: `${path.dirname(process.execPath)}:${process.env.PATH ?? ''}`, BRINE_NODE_FLAGS: nodeArgs, BRINE_LOOP_CPU_MONITOR: '1' },
  });
  // a bench that fails half way does not leave its master running
  process.once('exit', () => proc.exitCode === null && proc.signalCode === null && proc.kill('SIGKILL'));
  const ready = await new Promise((resolve, reject) => {
    let buf = '';
    proc.stderr.setEncoding('utf8').on('data', (c) => {
      buf += c;
      for (const line of buf.split('\n')) if (line.includes('"master_ready"')) resolve(JSON.parse(line));
    });
    proc.on('exit', () => reject(new Error(buf)));
  });
  proc.stderr.removeAllListeners('data');
  proc.stderr.resume();
  const client = new MasterClient({ url: ready.api_url, token: readFileSync(`${dir}/master/api_token`, 'utf8').trim() });
  const rss = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${proc.pid}/status`, 'utf8'))[1]);
  const cpu = () => cpuOf(proc.pid);
  // the compile workers are child processes: their CPU is not in the master's
  const workersCpu = () => {
    const kids = readFileSync(`/proc/${proc.pid}/task/${proc.pid}/children`, 'utf8').split(' ').filter(Boolean);
    return kids.reduce((sum, pid) => sum + cpuOf(pid), 0);
  };
  // the longest block since the previous call: wall time (what a client waits); `active` the
  // loop's time outside its wait for events (without late wake-ups of a loaded machine), `cpu`
  // its main thread's CPU time, `gc` the garbage collectors' pauses in the longest (see loopCpuGauge in packages/master/src/metrics.ts)
  const loopMax = async () => {
    const res = await fetch(`${ready.api_url}/metrics`, { headers: { authorization: `Bearer ${client.target.token}` } });
    const text = await res.text();
    const ms = (name) => {
      const m = new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text);
      return m ? Math.round(Number(m[1]) * 1000) : undefined;
    };
    return {
      wall: ms('nodejs_eventloop_lag_max_seconds'),
      active: ms('brine_eventloop_block_max_active_seconds'),
      cpu: ms('brine_eventloop_block_max_cpu_seconds'),
      gc: ms('brine_eventloop_block_max_gc_seconds'),
      // the store's commits so far (a running sum, not reset by the scrape)
      storeWriteMs: ms('brine_store_write_seconds_sum'),
      // minions with a session now
      connected: Number(/^brine_minions_connected (\S+)$/m.exec(text)?.[1]),
    };
  };
  const loopMaxMs = async () => (await loopMax()).wall;
  return { proc, ready, client, rss, cpu, workersCpu, loopMaxMs, loopMax };
}

/** CPU time (user + system, ms) of a live process. */
function cpuOf(pid) {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(f[11]) + Number(f[12])) * 1000) / 100; // utime + stime, clock ticks of 10 ms
  } catch {
    return 0; // gone meanwhile
  }
}

/**
 * Runs `fn` and returns its result with the wall time (ms), the CPU time (s) of the master and of
 * its compile workers, its longest event-loop block (ms) meanwhile (a /metrics scrape before resets
 * it, one after reads it), and the time its store's commits took (ms).
 */
export async function measured(master, fn) {
  const store0 = (await master.loopMax()).storeWriteMs ?? 0;
  const cpu0 = master.cpu();
  const workers0 = master.workersCpu();
  const t0 = performance.now();
  const out = await fn();
  const ms = performance.now() - t0;
  const workersS = (master.workersCpu() - workers0) / 1000;
  const loop = await master.loopMax();
  const storeWriteMs = (loop.storeWriteMs ?? 0) - store0;
  return {
    out,
    ms,
    cpuS: (master.cpu() - cpu0) / 1000,
    workersS,
    loopMs: loop.wall,
    loopActiveMs: loop.active,
    loopCpuMs: loop.cpu,
    loopGcMs: loop.gc,
    storeWriteMs,
  };
}

/** SIGKILLs a master started by startMaster; resolves once it is gone. */
export async function killMaster(master) {
  const gone = new Promise((r) => master.proc.once('exit', r));
  master.proc.kill('SIGKILL');
  await gone;
}

/**
 * N agents `<prefix>-00000`... (numbered from `offset`) for the master at `port`, all with the same
 * `grains` (and `masterFinger` pinned, when given); not started.
 */
export function createAgents(n, { dir, port, prefix, grains, offset = 0, masterFinger, log = createLogger({ level: 'silent' }) }) {
  const agents = [];
  for (let i = offset; i < offset + n; i++) {
    const c = loadMinionConfig(undefined, {
      id: `${prefix}-${String(i).padStart(5, '0')}`,
      master: '127.0.0.1',
      master_port: port,
      data_dir: path.join(dir, 'm', String(i)),
      recon_default: 0.2,
      recon_max: 2,
      log_level: 'silent',
      // pinned as an operator would: recording it on first contact is a file write per host
      ...(masterFinger ? { master_finger: masterFinger } : {}),
    });
    agents.push(new MinionAgent(c, { log, grains }));
  }
  return agents;
}

/** Starts every agent; resolves when each is authenticated. */
export async function startAgents(agents) {
  await Promise.all(
    agents.map(
      (a) =>
        new Promise((resolve) => {
          a.once('ready', resolve);
          a.start();
        }),
    ),
  );
}

/** Resolves when the master lists `n` connected minions with their grains (targeting needs them). */
export async function waitGrains(client, n) {
  for (;;) {
    const { minions } = await client.get('/v1/minions');
    if (minions.filter((m) => m.connected && m.grains.os).length === n) return;
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * Resolves when the store (read beside the master, not through its API, so that polling does not
 * load its event loop) holds the grains of n minions: targeting needs them.
 */
export async function grainsStored(dbFile, n) {
  const db = new Database(dbFile, { readonly: true });
  const count = db.prepare("SELECT count(*) AS n FROM minions WHERE json_extract(grains, '$.os') IS NOT NULL").pluck();
  while (count.get() < n) await new Promise((r) => setTimeout(r, 20));
  db.close();
}

/** Stops the agents and the master, then removes `dir`. */
export async function stop({ agents, master, dir }) {
  await Promise.all(agents.map((a) => a.stop()));
  master.proc.kill('SIGTERM');
  await new Promise((r) => master.proc.on('exit', r));
  rmSync(dir, { recursive: true, force: true });
}
