import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { parse } from 'yaml';
import { createLogger, type ScheduleClock, type ScheduleItem } from '@brine/core';
import { MinionSchedule } from '../src/schedule.js';
import { SCHEDULE_FUNCTIONS } from '../src/schedule-functions.js';
import type { MinionExecContext } from '../src/exec-function.js';

const log = createLogger({ level: 'silent' });

/** A schedule in a temp data dir whose runs are recorded; its clock never fires by itself. */
function setup(config: Record<string, unknown> = {}) {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'brine-minion-schedule-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const clock: ScheduleClock = { now: () => 0, random: () => 0, setTimer: () => 0, clearTimer: () => {} };
  const runs: string[] = [];
  const make = () =>
    new MinionSchedule({
      dataDir,
      config,
      log,
      clock,
      run: async (item: ScheduleItem) => void runs.push(item.name),
    });
  const s = make();
  s.load();
  const saved = () => parse(readFileSync(path.join(dataDir, '_schedule.conf'), 'utf8')) as { schedule: Record<string, Record<string, unknown>> };
  return { s, runs, make, saved };
}

t.test('add, modify, delete answer as Salt does and persist to _schedule.conf', async (t) => {
  const { s, make, saved } = setup({ ping: { function: 'test.ping', seconds: 60 } });
  t.same(s.add('job1', { function: 'test.echo', job_args: ['hi'], seconds: '3600' }), {
    comment: 'Added job: job1 to schedule.',
    result: true,
    changes: { job1: 'added' },
  });
  t.same(saved().schedule.job1, { args: ['hi'], enabled: true, function: 'test.echo', jid_include: true, maxrunning: 1, name: 'job1', seconds: '3600' });
  t.same(s.add('job1', { function: 'test.ping', seconds: 1 }), { comment: 'Job job1 already exists in schedule.', result: false, changes: {} });
  t.throws(() => s.add('bad', { function: 'test.ping', seconds: 5, cron: '* * * * *' }), { code: 'BRINE_ERR_CORE_SCHEDULE' });
  t.same(s.add('t', { function: 'test.ping', seconds: 5, test: true }), { comment: 'Job: t would be added to schedule.', result: true, changes: {} });

  const m = s.modify('job1', { seconds: 60 });
  t.equal(m.comment, 'Modified job: job1 in schedule.');
  t.same((m.changes!.job1 as { new: Record<string, unknown> }).new.function, 'test.echo', 'the function is kept');
  t.equal(s.engine.item('job1')?.interval, 60);
  t.same(s.modify('job1', { seconds: 60 }).comment, 'Job job1 in correct state');
  t.same(s.modify('nope', {}), { comment: 'Job nope does not exist in schedule.', result: false, changes: {} });

  // a new process reads the saved schedule back
  const again = make();
  again.load();
  t.equal(again.engine.item('job1')?.interval, 60);
  t.same(s.delete('job1', {}), { comment: 'Deleted Job job1 from schedule.', result: true, changes: { job1: 'removed' } });
  t.same(s.delete('job1', {}), { comment: 'Job job1 does not exist.', result: false, changes: {} });
  t.notOk('job1' in saved().schedule);
});

t.test('enable/disable (a job, the scheduler), run_job, purge, list', async (t) => {
  const { s, runs, saved } = setup({ ping: { function: 'test.ping', seconds: 60 } });
  t.same(s.setJobEnabled('ping', false, {}), { comment: 'Disabled Job ping in schedule.', result: true, changes: { ping: 'disabled' } });
  t.equal(saved().schedule.ping!.enabled, false);
  t.same(s.runJob('ping', false), { comment: 'Job ping is disabled.', result: true });
  t.same(s.runJob('ping', true), { comment: 'Scheduling Job ping on minion.', result: true });
  t.same(runs, ['ping']);
  t.same(s.runJob('nope', false), { comment: 'Job nope does not exist.', result: false });
  t.same(s.setEnabled(false, {}), { comment: 'Disabled schedule on minion.', result: true, changes: { schedule: 'disabled' } });
  t.equal(s.engine.enabled, false);
  t.equal(s.list({}), 'schedule:\n  enabled: false\n  ping:\n    enabled: false\n    function: test.ping\n    name: ping\n    saved: true\n    seconds: 60\n');
  t.same(s.list({ show_disabled: false, return_yaml: false }), { enabled: false });
  s.setEnabled(true, {});
  t.same(s.purge({}), { comment: ['Deleted job: ping from schedule.'], result: true, changes: { ping: 'removed' } });
  t.equal(s.list({}), 'schedule:\n  enabled: true\n');
});

t.test("the pillar's schedule loads over the config's, again on each load; its changes stay in memory", async (t) => {
  const { s, make } = setup();
  s.load({ schedule: { fromPillar: { function: 'test.ping', minutes: 5 } } });
  t.equal(s.engine.item('fromPillar')?.interval, 300);
  t.same(s.setJobEnabled('fromPillar', false, {}).result, true);
  t.equal(s.engine.item('fromPillar')?.enabled, false);
  const other = make();
  other.load();
  t.equal(other.engine.item('fromPillar'), undefined, 'nothing of the pillar was saved');
  s.load({ schedule: {} });
  t.equal(s.engine.item('fromPillar'), undefined, 'a refreshed pillar without it drops it');
  // a bad pillar entry is left out, the rest loads
  s.load({ schedule: { bad: { function: 'test.ping' }, good: { function: 'test.ping', seconds: 1 } } });
  t.same(
    s.engine.entries().map((e) => [e.name, e.where]),
    [['good', 'pillar']],
  );
});

t.test('schedule.show_next_fire_time answers in local time, as Salt does', async (t) => {
  process.env.TZ = 'UTC';
  const { s } = setup({ ping: { function: 'test.ping', seconds: 90 } });
  const fn = SCHEDULE_FUNCTIONS.find((f) => f.name === 'schedule.show_next_fire_time')!;
  const ctx = { schedule: s } as unknown as MinionExecContext;
  t.same((await fn.run({ name: 'ping' }, ctx)).return, { result: true, next_fire_time: '1970-01-01T00:01:30' });
  t.same((await fn.run({ name: 'nope' }, ctx)).return, { result: true, comment: 'next fire time not available.' });
});
