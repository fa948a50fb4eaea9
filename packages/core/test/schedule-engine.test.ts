import t from 'tap';
import { nextTime, parseScheduleItem, parseTimeSpec, resolveTime, ScheduleEngine, type ScheduleClock, type ScheduleItem } from '../src/index.js';

// local times below are read in UTC, whatever the machine's zone
process.env.TZ = 'UTC';

/** A clock the test steps: timers fire when `advance` passes their time. */
class FakeClock implements ScheduleClock {
  t: number;
  rand = 0;
  private timers: Array<{ at: number; fn: () => void; id: number }> = [];
  private ids = 0;
  constructor(start: string) {
    this.t = Date.parse(start);
  }
  now = () => this.t;
  random = () => this.rand;
  setTimer = (ms: number, fn: () => void) => {
    const id = ++this.ids;
    this.timers.push({ at: this.t + ms, fn, id });
    return id;
  };
  clearTimer = (h: unknown) => {
    this.timers = this.timers.filter((x) => x.id !== h);
  };
  /** Moves the clock on by `ms`, firing every timer due on the way, in order. */
  advance(ms: number): void {
    const end = this.t + ms;
    for (;;) {
      this.timers.sort((a, b) => a.at - b.at);
      const next = this.timers[0];
      if (!next || next.at > end) break;
      this.timers.shift();
      this.t = next.at;
      next.fn();
    }
    this.t = end;
  }
}

const silent = { info: () => {}, warn: () => {}, error: () => {} };

/** An engine whose runs are recorded (with the clock's time) and finish when the test says. */
function setup(start = '2026-11-27T12:00:00Z') {
  const clock = new FakeClock(start);
  const runs: Array<{ name: string; at: string }> = [];
  const finish: Array<() => void> = [];
  const warnings: string[] = [];
  const engine = new ScheduleEngine({
    clock,
    log: { ...silent, warn: (_o, m) => warnings.push(m) },
    run: (item: ScheduleItem) => {
      runs.push({ name: item.name, at: new Date(clock.t).toISOString().slice(11, 19) });
      return new Promise<void>((resolve) => finish.push(resolve));
    },
  });
  const done = async () => {
    for (const f of finish.splice(0)) f();
    await new Promise((r) => setImmediate(r));
  };
  return { clock, runs, engine, done, warnings };
}

t.test('an interval runs every N seconds from the load, not at once', async (t) => {
  const { clock, runs, engine, done } = setup();
  t.same(engine.load([{ name: 'ping', raw: { function: 'test.ping', seconds: 2 }, where: 'minion.yaml' }]), []);
  clock.advance(1999);
  t.same(runs, []);
  clock.advance(1);
  await done();
  clock.advance(2000);
  await done();
  t.same(
    runs.map((r) => r.at),
    ['12:00:02', '12:00:04'],
  );
  t.equal(engine.nextFireTime('ping'), Date.parse('2026-11-27T12:00:06Z'));
});

t.test('minutes, hours and days add up; run_on_start runs at load', async (t) => {
  const { clock, runs, engine } = setup();
  engine.load([{ name: 'x', raw: { function: 'test.ping', minutes: 1, hours: 1, days: '1', run_on_start: true }, where: 'w' }]);
  t.same(
    runs.map((r) => r.at),
    [],
  );
  clock.advance(0);
  t.same(
    runs.map((r) => r.at),
    ['12:00:00'],
  );
  t.equal(engine.nextFireTime('x'), Date.parse('2026-11-28T13:01:00Z'));
});

t.test('maxrunning skips a run while the last one is still going', async (t) => {
  const { clock, runs, engine, done } = setup();
  engine.load([{ name: 'slow', raw: { function: 'test.sleep', seconds: 1 }, where: 'w' }]);
  clock.advance(1000);
  clock.advance(1000);
  t.equal(runs.length, 1, 'the second run is skipped: one is running');
  t.equal(engine.running('slow'), 1);
  await done();
  clock.advance(1000);
  t.equal(runs.length, 2);
  engine.load([{ name: 'two', raw: { function: 'test.sleep', seconds: 1, maxrunning: 2 }, where: 'w' }]);
  clock.advance(3000);
  t.equal(runs.filter((r) => r.name === 'two').length, 2, 'maxrunning 2 lets two run at once');
});

t.test('disabled entries and a disabled schedule do not run; enabling brings them back', async (t) => {
  const { clock, runs, engine, done } = setup();
  engine.load([
    { name: 'on', raw: { function: 'test.ping', seconds: 10 }, where: 'w' },
    { name: 'off', raw: { function: 'test.ping', seconds: 10, enabled: false }, where: 'w' },
  ]);
  clock.advance(10_000);
  await done();
  t.same(
    runs.map((r) => r.name),
    ['on'],
  );
  engine.enabled = false;
  clock.advance(10_000);
  t.equal(runs.length, 1);
  engine.enabled = true;
  clock.advance(10_000);
  t.equal(runs.length, 2);
});

t.test('a reload keeps the next time of unchanged entries and drops removed ones', async (t) => {
  const { clock, runs, engine } = setup();
  const a = { name: 'a', raw: { function: 'test.ping', seconds: 60 }, where: 'w' };
  engine.load([a, { name: 'b', raw: { function: 'test.ping', seconds: 60 }, where: 'w' }]);
  clock.advance(30_000);
  engine.load([a]);
  clock.advance(30_000);
  t.same(
    runs.map((r) => [r.name, r.at]),
    [['a', '12:01:00']],
  );
  t.same(
    engine.entries().map((e) => e.name),
    ['a'],
  );
});

t.test('disabling and enabling an entry keeps its times', async (t) => {
  const { clock, runs, engine, done } = setup();
  const ping = (enabled: boolean) => [{ name: 'ping', raw: { function: 'test.ping', seconds: 60, enabled }, where: 'w' }];
  engine.load(ping(true));
  clock.advance(30_000);
  engine.load(ping(false));
  clock.advance(15_000);
  engine.load(ping(true));
  clock.advance(60_000);
  await done();
  t.same(
    runs.map((r) => r.at),
    ['12:01:00'],
    'the interval did not restart',
  );
});

t.test('cron: five fields, or six with the seconds last (croniter)', async (t) => {
  const { clock, runs, engine } = setup('2026-11-27T12:02:30Z');
  engine.load([
    { name: 'five', raw: { function: 'test.ping', cron: '*/5 * * * *' }, where: 'w' },
    { name: 'six', raw: { function: 'test.ping', cron: '* * * * * 15' }, where: 'w' },
  ]);
  t.equal(engine.nextFireTime('five'), Date.parse('2026-11-27T12:05:00Z'));
  t.equal(engine.nextFireTime('six'), Date.parse('2026-11-27T12:03:15Z'));
  clock.advance(5 * 60_000);
  t.same(
    runs.filter((r) => r.name === 'five').map((r) => r.at),
    ['12:05:00'],
  );
  t.equal(engine.nextFireTime('five'), Date.parse('2026-11-27T12:10:00Z'));
});

t.test('when: fixed times pass, times of day come back each day', async (t) => {
  const { clock, runs, engine } = setup();
  engine.load([
    { name: 'once', raw: { function: 'test.ping', when: ['2026-11-27 13:00', '2026-11-27T11:00:00Z'] }, where: 'w' },
    { name: 'daily', raw: { function: 'test.ping', when: '11:30pm' }, where: 'w' },
  ]);
  t.equal(engine.nextFireTime('once'), Date.parse('2026-11-27T13:00:00Z'), 'a passed time is skipped');
  clock.advance(24 * 3600_000);
  t.same(
    runs.map((r) => [r.name, r.at]),
    [
      ['once', '13:00:00'],
      ['daily', '23:30:00'],
    ],
  );
  t.equal(engine.nextFireTime('once'), undefined, 'every time passed: it will not run again');
  t.equal(engine.nextFireTime('daily'), Date.parse('2026-11-28T23:30:00Z'));
});

t.test('splay delays each run by a number of seconds within its bounds', async (t) => {
  const { clock, engine } = setup();
  clock.rand = 0.999;
  engine.load([
    { name: 'int', raw: { function: 'test.ping', seconds: 60, splay: 10 }, where: 'w' },
    { name: 'span', raw: { function: 'test.ping', seconds: 60, splay: { start: 5, end: 7 } }, where: 'w' },
  ]);
  t.equal(engine.nextFireTime('int'), Date.parse('2026-11-27T12:01:10Z'));
  t.equal(engine.nextFireTime('span'), Date.parse('2026-11-27T12:01:07Z'));
  clock.rand = 0;
  clock.advance(70_000);
  t.equal(engine.nextFireTime('int'), Date.parse('2026-11-27T12:02:11Z'), 'the next interval counts from the run');
});

t.test('range runs only inside it (or outside when inverted); after and until bound the runs', async (t) => {
  const { clock, runs, engine } = setup('2026-11-27T08:00:00Z');
  // the runs here never finish: maxrunning is out of the way
  const m = { maxrunning: 99 };
  engine.load([
    { name: 'office', raw: { function: 'test.ping', hours: 1, range: { start: '9:00am', end: '5:00pm' }, ...m }, where: 'w' },
    { name: 'night', raw: { function: 'test.ping', hours: 1, range: { start: '9:00am', end: '5:00pm', invert: true }, ...m }, where: 'w' },
    { name: 'window', raw: { function: 'test.ping', hours: 1, after: '2026-11-27 10:30', until: '2026-11-27 12:30', ...m }, where: 'w' },
  ]);
  clock.advance(12 * 3600_000);
  const at = (n: string) => runs.filter((r) => r.name === n).map((r) => r.at.slice(0, 2));
  t.same(at('office'), ['09', '10', '11', '12', '13', '14', '15', '16', '17']);
  t.same(at('night'), ['18', '19', '20']);
  t.same(at('window'), ['11', '12']);
});

t.test('runNow runs an entry at once, whatever its time', async (t) => {
  const { runs, engine } = setup();
  engine.load([{ name: 'a', raw: { function: 'test.ping', days: 7 }, where: 'w' }]);
  t.ok(engine.runNow('a'));
  t.notOk(engine.runNow('nope'));
  t.same(
    runs.map((r) => r.name),
    ['a'],
  );
});

t.test('bad entries are refused with a coded error naming them and where they came from', async (t) => {
  const { engine, warnings } = setup();
  const errors = engine.load([
    { name: 'good', raw: { function: 'test.ping', seconds: 5, returner: 'mysql', jitter: 1 }, where: 'minion.yaml' },
    { name: 'nofun', raw: { seconds: 5 }, where: 'minion.yaml' },
    { name: 'notime', raw: { function: 'test.ping' }, where: 'pillar' },
    { name: 'both', raw: { function: 'test.ping', seconds: 5, cron: '* * * * *' }, where: 'pillar' },
    { name: 'badwhen', raw: { function: 'test.ping', when: 'next tuesday at tea time' }, where: 'pillar' },
    { name: 'badcron', raw: { function: 'test.ping', cron: '61 * * * *' }, where: 'pillar' },
  ]);
  t.same(
    engine.entries().map((e) => e.name),
    ['good'],
  );
  t.same(
    errors.map((e) => e.code),
    Array(5).fill('BRINE_ERR_CORE_SCHEDULE'),
  );
  t.match(errors[0]!.message, /^schedule 'nofun' \(minion\.yaml\): 'function' must name a function/);
  t.match(errors[1]!.message, /no time given/);
  t.match(errors[2]!.message, /cannot be used with 'cron'/);
  t.match(errors[3]!.message, /'when' "next tuesday at tea time" is not a time Brine reads/);
  t.match(errors[4]!.message, /cron '61 \* \* \* \*' cannot be read/);
  t.match(warnings.join('\n'), /'returner' is ignored/);
  t.match(warnings.join('\n'), /unknown options ignored: jitter/);
});

t.test('time forms Salt users write', async (t) => {
  const now = Date.parse('2026-11-27T12:00:00Z'); // a Friday
  const at = (s: string) => {
    const spec = parseTimeSpec(s);
    return spec ? new Date(resolveTime(spec, now)).toISOString() : undefined;
  };
  t.equal(at('2026-12-01T08:00:00Z'), '2026-12-01T08:00:00.000Z');
  t.equal(at('2026-12-01T08:00:00+02:00'), '2026-12-01T06:00:00.000Z');
  t.equal(at('2026-12-01 08:15'), '2026-12-01T08:15:00.000Z');
  t.equal(at('2026-12-01 8:15pm'), '2026-12-01T20:15:00.000Z');
  t.equal(at('12/01/2026 08:15:30'), '2026-12-01T08:15:30.000Z');
  t.equal(at('2026-12-01'), '2026-12-01T00:00:00.000Z');
  t.equal(at('11:00pm'), '2026-11-27T23:00:00.000Z');
  t.equal(at('12am'), '2026-11-27T00:00:00.000Z');
  t.equal(at('17:45'), '2026-11-27T17:45:00.000Z');
  t.equal(at('Monday 5:00pm'), '2026-11-30T17:00:00.000Z');
  t.equal(at('fri 9:00'), '2026-11-27T09:00:00.000Z');
  for (const bad of ['2026-02-31 10:00', '25:00', '13pm', 'tomorrow', 'Funday 5pm', '5']) t.equal(parseTimeSpec(bad), undefined, bad);
  t.equal(nextTime(parseTimeSpec('fri 9:00')!, now), Date.parse('2026-12-04T09:00:00Z'), 'next week once this one passed');
});

t.test('parseScheduleItem reads command-line strings as Salt does', async (t) => {
  const { item } = parseScheduleItem('j', { function: 'test.ping', seconds: '30', enabled: 'False', maxrunning: '2', splay: '5' }, 'cli');
  t.equal(item.interval, 30);
  t.equal(item.enabled, false);
  t.equal(item.maxrunning, 2);
  t.same(item.splay, { start: 1, end: 5 });
});
