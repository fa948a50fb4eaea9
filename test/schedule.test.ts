import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import type { BusEvent } from '@brine/master';
import { Cluster } from './helpers/cluster.js';

// One master, one minion whose config schedules a test.ping every 2 s; a tree for a scheduled
// state.apply. Every wait is on the master's event stream (the job's `new` and `ret` events).
const cluster = new Cluster();
const states = path.join(cluster.dir, 'states');
mkdirSync(states);
writeFileSync(path.join(states, 'top.sls'), "base:\n  '*':\n    - hello\n");
writeFileSync(path.join(states, 'hello.sls'), 'hello:\n  test.succeed_without_changes: []\n');
const pillar = path.join(cluster.dir, 'pillar');
mkdirSync(pillar);
writeFileSync(path.join(pillar, 'top.sls'), "base:\n  '*':\n    - sched\n");
writeFileSync(path.join(pillar, 'sched.sls'), 'other: 1\n');
cluster.setMasterOptions({ file_roots: { base: [states] }, pillar_roots: { base: [pillar] } });
const minionSchedule = { schedule: { ping: { function: 'test.ping', seconds: 2 } } };

interface JobNew {
  jid: string;
  fun: string;
  user: string;
}

/** Every bus event from the start, and waits for the first (past or future) matching one. */
const events: BusEvent[] = [];
const waiters: Array<{ pred: (e: BusEvent) => boolean; resolve: (e: BusEvent) => void }> = [];
const stopEvents = new AbortController();
function waitFor(pred: (e: BusEvent) => boolean, since = 0): Promise<BusEvent> {
  const hit = events.slice(since).find(pred);
  if (hit) return Promise.resolve(hit);
  return new Promise((resolve) => waiters.push({ pred, resolve }));
}
const isNew = (user: string) => (e: BusEvent) => /^brine\/job\/\d+\/new$/.test(e.tag) && (e.data as JobNew).user === user;
const isRet = (jid: string) => (e: BusEvent) => e.tag === `brine/job/${jid}/ret/sched`;
/** The next run of a schedule after event number `since`, once its return is stored. */
async function nextRun(name: string, since: number): Promise<string> {
  const { jid } = (await waitFor(isNew(`schedule:${name}`), since)).data as JobNew;
  await waitFor(isRet(jid));
  return jid;
}

t.before(async () => {
  await cluster.start();
  await new Promise<void>((resolve, reject) => {
    cluster.client
      .events(
        undefined,
        (e) => {
          events.push(e);
          for (const w of waiters.splice(0)) {
            if (w.pred(e)) w.resolve(e);
            else waiters.push(w);
          }
        },
        stopEvents.signal,
        resolve,
      )
      .catch(reject);
  });
  cluster.startMinion('sched', minionSchedule);
  await cluster.waitMinionsKnown(['sched']);
});
t.teardown(async () => {
  stopEvents.abort();
  await cluster.close();
});

t.test("the config's schedule runs test.ping and the master stores each run as a job named after it", async (t) => {
  const first = await nextRun('ping', 0);
  // (the last test sees it run again and again, each run a job of its own)
  const job = await cluster.client.get<{ job: { fun: string; user: string; expected: string[] }; returns: Record<string, { return: unknown }> }>(
    `/v1/jobs/${first}`,
  );
  t.equal(job.job.fun, 'test.ping');
  t.equal(job.job.user, 'schedule:ping');
  t.same(job.job.expected, ['sched']);
  t.equal(job.returns.sched?.return, true);
  const shown = await cluster.brine(['jobs', 'show', first]);
  t.equal(shown.code, 0, shown.stderr);
  t.match(shown.stdout, /^user: +schedule:ping$/m);
  const listed = await cluster.brine(['jobs', 'list', '--function', 'test.ping']);
  t.match(listed.stdout, /User: +schedule:ping/);
});

t.test('schedule.add over brine run adds a state.apply that runs, is listed, and survives a restart', async (t) => {
  const since = events.length;
  const add = await cluster.brine(['run', 'sched', 'schedule.add', 'hello', 'function=state.apply', 'seconds=2', '--out', 'json']);
  t.equal(add.code, 0, add.stderr);
  t.same(JSON.parse(add.stdout), { sched: { comment: 'Added job: hello to schedule.', result: true, changes: { hello: 'added' } } });
  const jid = await nextRun('hello', since);
  const st = await cluster.client.get<{ states: Array<{ id: string; result: boolean }> }>(`/v1/jobs/${jid}/states`);
  t.same(
    st.states.map((s) => [s.id, s.result]),
    [['hello', true]],
    'the scheduled highstate streamed its state results',
  );
  const list = await cluster.brine(['run', 'sched', 'schedule.list', '--out', 'json']);
  const yaml = (JSON.parse(list.stdout) as { sched: string }).sched;
  t.match(
    yaml,
    /^schedule:\n {2}hello:\n {4}enabled: true\n {4}function: state.apply\n {4}jid_include: true\n {4}maxrunning: 1\n {4}name: hello\n {4}saved: true\n {4}seconds: 2\n/,
  );
  // Salt's persist writes the whole non-pillar schedule: the config's entry is saved too
  t.match(yaml, /\n {2}ping:\n {4}enabled: true\n {4}function: test.ping\n {4}name: ping\n {4}saved: true\n {4}seconds: 2\n/);

  await cluster.minions.get('sched')!.kill('SIGTERM');
  const restarted = events.length;
  cluster.startMinion('sched', minionSchedule);
  await nextRun('hello', restarted);
  t.pass('the added job runs after the restart');
});

t.test('schedule.disable_job stops a job while the others go on', async (t) => {
  const r = await cluster.brine(['run', 'sched', 'schedule.disable_job', 'hello', '--out', 'json']);
  t.equal(r.code, 0, r.stderr);
  t.same(JSON.parse(r.stdout), { sched: { comment: 'Disabled Job hello in schedule.', result: true, changes: { hello: 'disabled' } } });
  // a state.apply run the disable found under way may still return: count from the next ping on
  const from = events.length;
  const p1 = await nextRun('ping', from);
  const after = events.findIndex((e) => e.tag === `brine/job/${p1}/ret/sched`);
  // two more pings span 4 s, two intervals of hello
  const p2 = await nextRun('ping', after + 1);
  const p3 = await nextRun('ping', events.findIndex((e) => e.tag === `brine/job/${p2}/ret/sched`) + 1);
  t.equal(new Set([p1, p2, p3]).size, 3, 'each run of ping is a job of its own');
  t.notOk(events.slice(after).some(isNew('schedule:hello')), 'no run of the disabled job');
  const enabled = await cluster.brine(['run', 'sched', 'schedule.is_enabled', 'hello', '--out', 'json']);
  t.equal((JSON.parse(enabled.stdout) as { sched: { enabled: boolean } }).sched.enabled, false);
});

t.test("saltutil.refresh_pillar loads the pillar's schedule again", async (t) => {
  writeFileSync(path.join(pillar, 'sched.sls'), 'schedule:\n  frompillar:\n    function: test.ping\n    hours: 1\n');
  const r = await cluster.brine(['run', 'sched', 'saltutil.refresh_pillar']);
  t.equal(r.code, 0, r.stderr);
  const list = await cluster.brine(['run', 'sched', 'schedule.list', 'return_yaml=False', '--out', 'json']);
  const jobs = (JSON.parse(list.stdout) as { sched: Record<string, { function?: string }> }).sched;
  t.equal(jobs.frompillar?.function, 'test.ping');
});
