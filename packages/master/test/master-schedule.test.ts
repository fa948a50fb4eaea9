import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { createLogger, type ScheduleClock } from '@brine/core';
import { loadMasterConfig } from '../src/config.js';
import { startMasterSchedule, type RunnerRequest } from '../src/master-schedule.js';

/** A clock whose one timer the test fires by moving time on. */
function clock(start: number) {
  let timer: { at: number; fn: () => void } | undefined;
  const c: ScheduleClock & { advance(ms: number): void; t: number } = {
    t: start,
    now: () => c.t,
    random: () => 0,
    setTimer: (ms, fn) => (timer = { at: c.t + ms, fn }),
    clearTimer: () => (timer = undefined),
    advance(ms) {
      const end = c.t + ms;
      while (timer && timer.at <= end) {
        const { at, fn } = timer;
        timer = undefined;
        c.t = at;
        fn();
      }
      c.t = end;
    },
  };
  return c;
}

const log = createLogger({ level: 'silent' });
const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-master-schedule-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

t.test("the master's schedule runs runner functions as the user schedule:<name>", async (t) => {
  const file = path.join(dir, 'master.yaml');
  writeFileSync(file, 'schedule:\n  nightly:\n    function: state.orchestrate\n    args: [orch.nightly]\n    kwargs: {pillar: {x: 1}}\n    hours: 24\n');
  const config = loadMasterConfig(file);
  const c = clock(Date.parse('2026-11-27T00:00:00Z'));
  const asked: RunnerRequest[] = [];
  const engine = startMasterSchedule({
    schedule: config.schedule,
    log,
    clock: c,
    runRunner: async (req) => {
      asked.push(req);
      return { jid: '20261127000000000000', success: true, ret: {} };
    },
  });
  c.advance(24 * 3600_000);
  t.same(asked, [{ fun: 'state.orchestrate', arg: ['orch.nightly'], kwarg: { pillar: { x: 1 } }, user: 'schedule:nightly' }]);
  engine.stop();
});

t.test('without a runner the run fails with a coded error naming the entry; the schedule goes on', async (t) => {
  const c = clock(0);
  const errors: string[] = [];
  const logged = createLogger({ level: 'silent' });
  logged.error = ((o: { err?: { code?: string } }) => errors.push(o.err?.code ?? '')) as typeof logged.error;
  const engine = startMasterSchedule({ schedule: { orch: { function: 'state.orchestrate', seconds: 10 } }, log: logged, clock: c });
  for (let i = 0; i < 2; i++) {
    c.advance(10_000);
    // the failed run is counted out a turn later (maxrunning)
    await new Promise((r) => setImmediate(r));
  }
  t.same(errors, ['BRINE_ERR_MASTER_SCHEDULE_NO_RUNNER', 'BRINE_ERR_MASTER_SCHEDULE_NO_RUNNER']);
  engine.stop();
});

t.test('an entry that cannot run is refused at config load, naming the file and the entry', async (t) => {
  const file = path.join(dir, 'bad.yaml');
  writeFileSync(file, "schedule:\n  nightly:\n    function: state.orchestrate\n    when: 'half past teatime'\n");
  t.throws(() => loadMasterConfig(file), { code: 'BRINE_ERR_MASTER_CONFIG', message: new RegExp(`${file}.*schedule 'nightly'.*'when' "half past teatime"`) });
});
