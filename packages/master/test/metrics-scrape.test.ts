import t from 'tap';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import path from 'node:path';
import { createServer, connect, type Socket } from 'node:net';
import type { EventBus } from '../src/event-bus.js';
import type { MinionHub } from '../src/hub.js';
import { MasterMetrics } from '../src/metrics.js';

/**
 * A scrape of /metrics walks no handle, request or descriptor on the event loop: prom-client's
 * defaults did (process._getActiveHandles, getActiveResourcesInfo, a readdirSync of
 * /proc/self/fd), and with 10,000 minions connected one scrape held the master's loop 40 ms. The
 * descriptor count is still reported, read off the loop.
 */
/** A full collection, through V8's own gc(), for a block that holds one. */
function fullGc(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

const hub = { sessions: new Map(), guard: { stats: { unauthenticated: 0 } } } as unknown as MinionHub;
const events = { subscribe: () => undefined } as unknown as EventBus;

t.test('a scrape calls no walk over the handles; process_open_fds counts the descriptors', async (t) => {
  // some sockets open, as a master's minions are
  const server = createServer((s) => s.on('error', () => undefined));
  await new Promise<void>((res) => server.listen(0, '127.0.0.1', res));
  const { port } = server.address() as { port: number };
  const clients: Socket[] = [];
  for (let i = 0; i < 20; i++)
    clients.push(
      await new Promise<Socket>((res) => {
        const c = connect(port, '127.0.0.1', () => res(c));
      }),
    );
  t.teardown(() => {
    for (const c of clients) c.destroy();
    server.close();
  });

  const walks: string[] = [];
  const proc = process as unknown as Record<string, unknown>;
  for (const name of ['_getActiveHandles', '_getActiveRequests', 'getActiveResourcesInfo']) {
    const real = proc[name] as () => unknown[];
    proc[name] = () => {
      walks.push(name);
      return real.call(process);
    };
    t.teardown(() => {
      proc[name] = real;
    });
  }
  const metrics = new MasterMetrics(hub, events);
  const text = await metrics.text();
  t.same(walks, [], 'no walk over every handle, request or resource');
  t.notMatch(text, /^nodejs_active_(handles|requests|resources)/m);
  const fds = Number(/^process_open_fds (\d+)$/m.exec(text)?.[1]);
  const now = readdirSync('/proc/self/fd').length - 1;
  t.ok(Math.abs(fds - now) <= 2, `process_open_fds ${fds} counts the open descriptors (${now})`);
  t.ok(fds >= 40, 'the sockets opened are counted');
  t.match(text, /^process_resident_memory_bytes \d+/m, 'the other defaults stay');
  t.match(text, /^nodejs_eventloop_lag_max_seconds /m);
});

t.test('BRINE_LOOP_BLOCK_LOG: the longest blocks, with their CPU, their GC pauses and their end on the monotonic clock', async (t) => {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'brine-blocks-')), 'blocks.jsonl');
  t.teardown(() => rmSync(path.dirname(file), { recursive: true, force: true }));
  process.env.BRINE_LOOP_CPU_MONITOR = '1';
  process.env.BRINE_LOOP_BLOCK_LOG = file;
  t.teardown(() => {
    delete process.env.BRINE_LOOP_CPU_MONITOR;
    delete process.env.BRINE_LOOP_BLOCK_LOG;
  });
  const metrics = new MasterMetrics(hub, events);
  // the monitor's timer starts ticking: then one turn holds the loop 80 ms, a full collection in its middle
  await new Promise((res) => setTimeout(res, 10));
  const before = process.hrtime.bigint() / 1000n;
  const spin = (ms: number) => {
    const end = performance.now() + ms;
    while (performance.now() < end);
  };
  spin(40);
  fullGc();
  spin(40);
  const after = process.hrtime.bigint() / 1000n;
  let blocks: Array<{ monotonic_end_us: number; ms: number; cpu_ms: number; gc: Array<[number, number]> }> = [];
  for (let i = 0; i < 100 && !blocks.some((b) => b.ms >= 80 && b.gc.length > 0); i++) {
    await new Promise((res) => setTimeout(res, 50));
    blocks = existsSync(file)
      ? readFileSync(file, 'utf8')
          .trim()
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as (typeof blocks)[number])
      : [];
  }
  const b = blocks.find((x) => x.ms >= 80);
  t.ok(b, `the 80 ms block is logged (${JSON.stringify(blocks)})`);
  t.ok(b!.cpu_ms > 0 && b!.cpu_ms <= b!.ms + 5, `with its CPU time (${b!.cpu_ms} ms; less on a loaded machine)`);
  t.ok(b!.monotonic_end_us > Number(before) && b!.monotonic_end_us - Number(after) < 1_000_000, 'its end on the monotonic clock, just after the work');
  t.ok(
    b!.gc.some(([kind]) => kind === 4),
    `the full collection inside it is named (${JSON.stringify(b!.gc)})`,
  );
  const text = await metrics.text();
  t.ok(Number(/^brine_eventloop_block_max_active_seconds (\S+)$/m.exec(text)?.[1]) >= 0.08, 'the scrape reports it as the longest block');
  t.ok(Number(/^brine_eventloop_block_max_gc_seconds (\S+)$/m.exec(text)?.[1]) > 0, 'and the GC pauses in it');
});
