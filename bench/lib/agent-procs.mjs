// N minion agents spread over K child processes (agent-child.mjs), driven from the bench's
// process over IPC. One process cannot hold thousands of agents (four descriptors each: the
// socket and the spool's SQLite files), and K processes also use more cores for the agents.
// Times the children report are epoch milliseconds; `since(t0)` turns them into this process's
// performance.now() clock.
import { fork } from 'node:child_process';
import { setPriority } from 'node:os';
import { fileURLToPath } from 'node:url';

const child = fileURLToPath(new URL('./agent-child.mjs', import.meta.url));

/** The i-th of k near-equal parts of n. */
export const share = (n, k, i) => Math.floor(n / k) + (i < n % k ? 1 : 0);

/** BENCH_PROCS / `--procs K` from argv: how many agent processes (default 1). */
export function procsArg(argv = process.argv) {
  const at = argv.indexOf('--procs');
  return Math.max(1, Number(at >= 0 ? argv[at + 1] : (process.env.BENCH_PROCS ?? 1)));
}

/** The arguments that are not flags (nor the value of --procs). */
export function positional(argv = process.argv.slice(2)) {
  return argv.filter((a, i) => !a.startsWith('--') && argv[i - 1] !== '--procs');
}

/**
 * Forks `procs` children and creates N agents among them (keys, spools); none started yet.
 * `onReady(i, t)` hears every welcome of agent i (t in this process's performance.now() clock).
 */
export async function spawnAgents({ n, procs, dir, port, prefix, grains, masterFinger, onReady }) {
  const kids = [];
  let stopping = false;
  const offset = (k) => Array.from({ length: k }, (_, j) => share(n, procs, j)).reduce((a, b) => a + b, 0);
  for (let k = 0; k < procs; k++) {
    // BENCH_AGENT_NODE_ARGS: Node flags for the agent processes (e.g. --cpu-prof --cpu-prof-dir=DIR)
    const execArgv = (process.env.BENCH_AGENT_NODE_ARGS ?? '').split(' ').filter(Boolean);
    const p = fork(child, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv });
    // BENCH_AGENT_NICE=19: the agents yield the cores to the master whenever it is runnable, as
    // if they ran on other hosts; the master's event-loop blocks then measure the master, not
    // the scheduler's sharing of two cores with thousands of agents
    if (process.env.BENCH_AGENT_NICE) setPriority(p.pid, Number(process.env.BENCH_AGENT_NICE));
    p.on('message', (m) => {
      if (m.op === 'ready') for (const r of m.ready) onReady(r.i, r.t - performance.timeOrigin);
    });
    // a bench waiting on agents that are gone would wait forever
    p.on('exit', (code) => {
      if (stopping) return;
      console.error(`agent process ${p.pid} exited (${code}): stopping the bench`);
      process.exit(1);
    });
    kids.push(p);
  }
  const created = kids.map((p) => once(p, 'created'));
  kids.forEach((p, k) => p.send({ op: 'init', n: share(n, procs, k), offset: offset(k), dir, port, prefix, grains, masterFinger }));
  await Promise.all(created);
  return {
    start: () => kids.forEach((p) => p.send({ op: 'start' })),
    /** The children's counters summed; jobs_started counts the job `jid` only. */
    stats: async (jid) => {
      const all = await Promise.all(
        kids.map((p) => {
          const got = once(p, 'stats');
          p.send({ op: 'stats', jid });
          return got;
        }),
      );
      return all.map((m) => m.stats).reduce(sumStats);
    },
    stop: async () => {
      stopping = true;
      await Promise.all(
        kids.map((p) => {
          const stopped = new Promise((r) => p.once('exit', r));
          p.send({ op: 'stop' });
          return stopped;
        }),
      );
    },
  };
}

function once(p, op) {
  return new Promise((resolve, reject) => {
    const on = (m) => {
      if (m.op !== op) return;
      p.off('message', on);
      p.off('exit', exit);
      resolve(m);
    };
    const exit = (code) => reject(new Error(`agent process ${p.pid} exited (${code}) before '${op}'`));
    p.on('message', on);
    p.once('exit', exit);
  });
}

function sumStats(a, b) {
  const out = { ...a, reasons: { ...a.reasons } };
  for (const [k, v] of Object.entries(b)) if (typeof v === 'number') out[k] += v;
  for (const [k, v] of Object.entries(b.reasons)) out.reasons[k] = (out.reasons[k] ?? 0) + v;
  return out;
}

/**
 * Follows readiness over phases: `mark()` starts a phase, `all()` resolves when every one of the n
 * agents has been welcomed since the mark; `first` is the phase's first welcome, `last` the one
 * that made it all.
 */
export function readiness(n) {
  let since = new Set();
  let first;
  let last;
  let allAt;
  let waiter;
  return {
    onReady(i, t) {
      since.add(i);
      first ??= t;
      last = t;
      if (since.size < n || allAt !== undefined) return;
      allAt = t;
      waiter?.();
    },
    mark() {
      since = new Set();
      first = last = allAt = undefined;
    },
    all() {
      return since.size >= n ? Promise.resolve() : new Promise((r) => (waiter = r));
    },
    get count() {
      return since.size;
    },
    get first() {
      return first;
    },
    /** The welcome that completed the phase (later ones are reconnects). */
    get last() {
      return allAt ?? last;
    },
  };
}
