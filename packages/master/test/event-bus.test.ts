/** The master's event bus: an event the store cannot take is reported, not thrown at the process. */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { EventBus, type BusEvent } from '../src/event-bus.js';
import { openStore } from '../src/store-url.js';

t.test('an event whose data cannot be stored is reported as lost; the next one is delivered', async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-bus-'));
  const store = await openStore({ url: `sqlite:${path.join(dir, 'master.db')}` });
  t.teardown(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const lost: Array<{ tag: string; err: string }> = [];
  const bus = new EventBus(store, (tag, err) => lost.push({ tag, err: err.message }));
  const got = new Promise<BusEvent>((resolve) => bus.subscribe('ok/*', resolve));
  // JSON has no big integers: the store's serialisation throws
  bus.fire('bad/one', { n: 1n });
  bus.fire('ok/two', { n: 2 });
  t.equal((await got).tag, 'ok/two');
  t.same(
    lost.map((l) => l.tag),
    ['bad/one'],
  );
  t.match(lost[0]!.err, /BigInt/);
  t.equal(bus.counts.lost, 1);
});
