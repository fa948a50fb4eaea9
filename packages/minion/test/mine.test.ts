import t, { type Test } from 'tap';
import { createLogger } from '@brine/core';
import { execContext, execRegistry } from '@brine/exec';
import { MinePusher, parseMineFunction, type MineDeps } from '../src/mine.js';

/**
 * The minion's mine: mine_functions parsed in Salt's forms, run through the real exec registry,
 * pushed to the master channel (here the requests are recorded: what the master does with them
 * is packages/master/test/mine.test.ts and test/mine.test.ts).
 */

t.test("mine_functions entries in Salt's forms", async (t) => {
  t.same(parseMineFunction('network.ip_addrs', ['eth0']), { name: 'network.ip_addrs', fun: 'network.ip_addrs', args: ['eth0'], kwargs: {} });
  t.same(parseMineFunction('test.ping', []), { name: 'test.ping', fun: 'test.ping', args: [], kwargs: {} });
  t.same(parseMineFunction('test.ping', null), { name: 'test.ping', fun: 'test.ping', args: [], kwargs: {} });
  t.same(parseMineFunction('network.ip_addrs', { interface: 'eth0' }), {
    name: 'network.ip_addrs',
    fun: 'network.ip_addrs',
    args: [],
    kwargs: { interface: 'eth0' },
  });
  t.same(parseMineFunction('internal_ip', [{ mine_function: 'network.ip_addrs' }, 'eth0']), {
    name: 'internal_ip',
    fun: 'network.ip_addrs',
    args: ['eth0'],
    kwargs: {},
  });
  t.same(parseMineFunction('internal_ip', { mine_function: 'network.ip_addrs', cidr: '10.0.0.0/8' }), {
    name: 'internal_ip',
    fun: 'network.ip_addrs',
    args: [],
    kwargs: { cidr: '10.0.0.0/8' },
  });
  t.match(parseMineFunction('x', 'eth0'), { refused: /list or a dictionary/ });
  t.match(parseMineFunction('x', [{ allow_tgt: 'web*' }]), { refused: /allow_tgt is not supported/ });
});

interface Pushed {
  op: string;
  args: Record<string, unknown>;
}

function pusher(t: Test, over: Partial<MineDeps> = {}, config: Partial<MineDeps['config']> = {}) {
  const requests: Pushed[] = [];
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  const exec = execRegistry();
  const deps: MineDeps = {
    config: { mine_functions: {}, mine_interval: 60, ...config },
    log: createLogger({ level: 'silent' }),
    exec,
    request: async (op, args) => {
      requests.push({ op, args });
      for (const w of waiters.filter((x) => requests.length >= x.n)) w.resolve();
      return true;
    },
    pillar: async () => ({}),
    context: () => ({ ...execContext({ registry: exec, grains: { id: 'm1', roles: ['db'] } }), running: () => [], kill: () => false }),
    requestBytes: () => 1024 * 1024,
    ...over,
  };
  const mine = new MinePusher(deps);
  t.teardown(() => mine.stop());
  /** Resolves once `n` requests were made in all. */
  const requested = (n: number) => new Promise<void>((resolve) => (requests.length >= n ? resolve() : waiters.push({ n, resolve })));
  return { mine, requests, requested };
}

t.test("the config's mine_functions go over the pillar's; each runs and its value is pushed", async (t) => {
  const { mine, requests } = pusher(
    t,
    { pillar: async () => ({ mine_functions: { 'test.echo': ['from pillar'], grains_roles: [{ mine_function: 'grains.get' }, 'roles'], 'no.such': [] } }) },
    { mine_functions: { 'test.echo': ['from config'], 'test.kwarg': { a: 1 } } },
  );
  const funs = await mine.reload();
  t.same(
    funs.map((f) => f.name),
    ['test.echo', 'grains_roles', 'test.kwarg'],
    'a function that is not available is left out',
  );
  await mine.start();
  t.same(requests, [{ op: 'mine.update', args: { data: { 'test.echo': 'from config', grains_roles: ['db'], 'test.kwarg': { a: 1 } }, clear: false } }]);
  t.equal(await mine.update(true, { 'test.ping': [] }), true, 'mine.update with its own functions');
  t.same(requests[1], { op: 'mine.update', args: { data: { 'test.ping': true }, clear: true } });
  t.equal(await mine.send('pinged', [], { mine_function: 'test.ping' }), true, 'mine.send with an alias');
  t.same(requests[2], { op: 'mine.update', args: { data: { pinged: true }, clear: false } });
  t.equal(await mine.send('broken', [], { mine_function: 'no.such' }), false, 'mine.send of a function that is not there: False, as Salt');
  t.equal(requests.length, 3, 'and nothing pushed');
  await mine.delete('pinged');
  await mine.flush();
  t.same(requests.slice(3), [
    { op: 'mine.delete', args: { fun: 'pinged' } },
    { op: 'mine.flush', args: {} },
  ]);
});

t.test('nothing configured: no push, and mine.update answers None', async (t) => {
  const { mine, requests } = pusher(t);
  await mine.start();
  t.equal(await mine.update(), false);
  t.same(requests, []);
});

t.test('pushes repeat every mine_interval; reload reschedules; a failing function is left out', async (t) => {
  // 30 ms: the interval is in minutes, as Salt's
  const { mine, requests, requested } = pusher(t, {}, { mine_functions: { 'test.ping': [], 'test.retcode': ['x'] }, mine_interval: 0.0005 });
  // the mine's timer does not hold the process open (a minion stops without waiting on it): this does, meanwhile
  const alive = setInterval(() => undefined, 1000);
  await mine.start();
  await requested(3);
  clearInterval(alive);
  t.same(requests[0]!.args.data, { 'test.ping': true }, 'test.retcode("x") failed and was left out');
  t.ok(requests.every((r) => r.op === 'mine.update'));
  mine.stop();
  const n = requests.length;
  await mine.reload();
  await mine.update();
  t.equal(requests.length, n + 1, 'a stopped mine schedules nothing more');
});

t.test('a push larger than a frame goes in several requests; only the first clears', async (t) => {
  const { mine, requests } = pusher(
    t,
    { requestBytes: () => 2500 },
    {
      mine_functions: {
        a: [{ mine_function: 'test.echo' }, 'x'.repeat(1400)],
        b: [{ mine_function: 'test.echo' }, 'y'.repeat(1400)],
        c: [{ mine_function: 'test.echo' }, 'z'],
      },
    },
  );
  await mine.reload();
  await mine.update(true);
  t.same(
    requests.map((r) => [Object.keys(r.args.data as object), r.args.clear]),
    [
      [['a'], true],
      [['b', 'c'], false],
    ],
  );
});

t.test('a pillar refresh hands its pillar to reload: its mine_functions replace the earlier ones', async (t) => {
  let asked = 0;
  const { mine } = pusher(t, {
    pillar: async () => {
      asked++;
      return { mine_functions: { 'test.ping': [] } };
    },
  });
  t.same(
    (await mine.reload()).map((f) => f.name),
    ['test.ping'],
  );
  t.same(
    (await mine.reload({ mine_functions: { 'test.true': [] } })).map((f) => f.name),
    ['test.true'],
    'the refreshed pillar',
  );
  t.equal(asked, 1, 'not asked of the master again');
});
