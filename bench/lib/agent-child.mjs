// One child process of a spread swarm (bench/lib/agent-procs.mjs forks it): holds its share of
// the minion agents, so that no process needs more than its share of descriptors (each agent
// holds its socket and its spool's SQLite files). Talks to the parent over IPC:
//   in:  init {n, offset, dir, port, prefix, grains} -> created · start · stats -> stats · stop -> stopped
//   out: ready [{i, t}]  every welcome (first and after a reconnect), batched per tick; t is epoch ms
// Counts, from the agents' own log events (no change to the minion package): reconnects (welcomes
// after the first), lost masters, tries that failed and why (a handshake timeout among them), and
// jobs started.
import { createLogger } from '@brine/core';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { createAgents } from './cluster.mjs';

/** Agents started in one turn of this process's event loop (BENCH_START_CHUNK; a large one starts them all at once). */
const START_CHUNK = Number(process.env.BENCH_START_CHUNK ?? 50);
/**
 * Agents of this process connecting at once (BENCH_CONNECTING; 0: no limit): a host handshakes
 * on its own CPU, while thousands of agents in one process share its turns, each handshake
 * advancing a little and none finishing in time (the master waits on them, slots held).
 */
const CONNECTING = Number(process.env.BENCH_CONNECTING ?? 300);
let connecting = 0;
let wake;

const now = () => performance.timeOrigin + performance.now();
const counts = { welcomes: 0, reconnects: 0, lost: 0, unreachable: 0, handshake_timeouts: 0, busy: 0, busy_wait_ms: 0, jobs_started: 0, reasons: {} };
const started = new Map();
// this process's CPU over the connect phase: from 'start' to its last agent's first welcome
const phase = { cpu0: undefined, startLoopMs: 0, cpuMs: 0, welcomed: 0 };

// the agents log nothing; their events are counted from the log calls (pino's logMethod hook)
const log = createLogger({
  level: 'info',
  hooks: {
    logMethod(args) {
      const f = args[0];
      if (typeof f !== 'object' || f === null) return;
      if (f.event === 'disconnected') counts.lost++;
      else if (f.event === 'master_busy') {
        counts.busy++;
        counts.busy_wait_ms += f.retry_in;
      } else if (f.event === 'job_started') started.set(f.jid, (started.get(f.jid) ?? 0) + 1);
      else if (f.event === 'master_unreachable') {
        counts.unreachable++;
        if (/timed out/i.test(f.reason)) counts.handshake_timeouts++;
        counts.reasons[f.reason] = (counts.reasons[f.reason] ?? 0) + 1;
      }
    },
  },
});

let agents = [];
let pending = [];
function flush() {
  const ready = pending;
  pending = [];
  process.send({ op: 'ready', ready });
}

// the bench is gone (it failed or was stopped): so are its agents
process.on('disconnect', () => process.exit(0));

process.on('message', async (msg) => {
  if (msg.op === 'init') {
    agents = createAgents(msg.n, { ...msg, log });
    agents.forEach((a, i) => {
      let seen = 0;
      a.on('ready', () => {
        counts.welcomes++;
        if (seen++ > 0) counts.reconnects++;
        else {
          if (++phase.welcomed === agents.length) phase.cpuMs = cpuMs(process.cpuUsage(phase.cpu0));
          connecting--;
          wake?.();
        }
        if (pending.length === 0) setImmediate(flush);
        pending.push({ i: msg.offset + i, t: now() });
      });
    });
    process.send({ op: 'created' });
  } else if (msg.op === 'start') {
    phase.cpu0 = process.cpuUsage();
    // a few at a time, giving the loop a turn between: thousands of hosts do not start in one
    // turn of one process, and handshakes already under way go on meanwhile
    for (let i = 0; i < agents.length; i += START_CHUNK) {
      while (CONNECTING > 0 && connecting >= CONNECTING) await new Promise((r) => (wake = r));
      const t = performance.now();
      const chunk = agents.slice(i, i + START_CHUNK);
      connecting += chunk.length;
      for (const a of chunk) a.start();
      phase.startLoopMs += performance.now() - t;
      await nextTurn();
    }
  } else if (msg.op === 'stats') {
    const cpu = { connect_cpu_ms: Math.round(phase.cpuMs), start_loop_ms: Math.round(phase.startLoopMs) };
    process.send({ op: 'stats', stats: { ...counts, ...cpu, jobs_started: msg.jid ? (started.get(msg.jid) ?? 0) : 0 } });
  } else if (msg.op === 'stop') {
    await Promise.all(agents.map((a) => a.stop()));
    process.send({ op: 'stopped' }, () => process.exit(0));
  }
});

function cpuMs(u) {
  return (u.user + u.system) / 1000;
}
