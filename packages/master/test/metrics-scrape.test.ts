import t from 'tap';
import { readdirSync } from 'node:fs';
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
