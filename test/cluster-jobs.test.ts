import t from 'tap';
import { Cluster } from './helpers/cluster.js';
import { until } from './helpers/proc.js';

interface Report {
  jid: string;
  returns: Record<string, { success: boolean; retcode: number; return: unknown }>;
  missing: Array<{ minion: string; reason: string }>;
  job: { expected: string[]; fun: string };
}

const cluster = new Cluster({
  minions: ['web1', 'web2', 'db1'],
  minionConfig: (id) => ({ grains: { role: id.startsWith('web') ? 'web' : 'db', deep: { tier: id === 'db1' ? 'gold' : 'iron' } } }),
  master: { nodegroups: { webs: 'L@web1,web2', all_but_db: 'N@webs and not db1' } },
});
t.before(async () => {
  await cluster.start();
});
t.teardown(() => cluster.close());

t.test('brine run test.ping reaches every minion and the job is stored', async (t) => {
  const r = await cluster.brine(['run', '*', 'test.ping', '--out', 'json']);
  t.equal(r.code, 0, r.stderr);
  const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
  t.same(lines, [{ db1: true }, { web1: true }, { web2: true }]);
  const { jobs } = await cluster.client.get<{ jobs: Array<{ fun: string; returned: number; expected: string[] }> }>('/v1/jobs?function=test.ping');
  t.equal(jobs[0]!.returned, 3);
  t.same(jobs[0]!.expected, ['db1', 'web1', 'web2']);
});

t.test('targeting: grain, nested grain, list, pcre, compound, nodegroup', async (t) => {
  const cases: Array<[string[], string[]]> = [
    [['-G', 'role:web'], ['web1', 'web2']],
    [['-G', 'deep:tier:gold'], ['db1']],
    [['-L', 'web1,db1'], ['db1', 'web1']],
    [['-E', '^web[0-9]$'], ['web1', 'web2']],
    [['-C', 'G@role:db or web2'], ['db1', 'web2']],
    [['-N', 'all_but_db'], ['web1', 'web2']],
  ];
  for (const [flags, want] of cases) {
    const tgt = flags[1]!;
    const r = await cluster.brine(['run', flags[0]!, tgt, 'test.ping', '--out', 'json']);
    t.equal(r.code, 0, `${flags.join(' ')}: ${r.stderr}`);
    const got = r.stdout.trim().split('\n').map((l) => Object.keys(JSON.parse(l) as object)[0]);
    t.same(got, want, flags.join(' '));
  }
});

t.test('a bad target expression is a clear coded error; an empty match too', async (t) => {
  const bad = await cluster.brine(['run', '-C', 'G@role:web and (', 'test.ping']);
  t.equal(bad.code, 1);
  t.match(bad.stderr, /BRINE_ERR_COMPILE_BAD_TARGET/);
  const none = await cluster.brine(['run', 'nothing*', 'test.ping']);
  t.equal(none.code, 1);
  t.match(none.stderr, /BRINE_ERR_MASTER_NO_MINIONS/);
});

t.test('cmd.run, cmd.run_all and argument checking', async (t) => {
  const r = await cluster.brine(['run', 'web1', 'cmd.run', 'echo out; echo err >&2', '--out', 'json']);
  t.same(JSON.parse(r.stdout), { web1: 'out\nerr' });
  const all = await cluster.brine(['run', 'web1', 'cmd.run_all', 'echo hi; exit 3', '--out', 'json']);
  t.equal(all.code, 1, 'a failing command fails the run');
  const ret = (JSON.parse(all.stdout) as { web1: { retcode: number; stdout: string } }).web1;
  t.equal(ret.retcode, 3);
  t.equal(ret.stdout, 'hi');
  const missing = await cluster.brine(['run', 'web1', 'test.echo', '--out', 'json']);
  t.match(JSON.parse(missing.stdout), { web1: /BRINE_ERR_MINION_BAD_ARGS|missing required argument 'text'/ });
  t.equal(missing.code, 1);
  const extra = await cluster.brine(['run', 'web1', 'test.echo', 'a', 'nope=1', '--out', 'json']);
  t.match(JSON.parse(extra.stdout), { web1: /unexpected keyword argument 'nope'/ });
  const unknown = await cluster.brine(['run', 'web1', 'no.such', '--out', 'json']);
  t.match(JSON.parse(unknown.stdout), { web1: /'no.such' is not available/ });
  const echo = await cluster.brine(['run', 'web1', 'test.echo', '42', '--out', 'json']);
  t.same(JSON.parse(echo.stdout), { web1: 42 }, 'arguments are read as YAML');
  const g = await cluster.brine(['run', 'db1', 'grains.get', 'deep:tier', '--out', 'json']);
  t.same(JSON.parse(g.stdout), { db1: 'gold' });
  const fns = await cluster.brine(['run', 'db1', 'sys.list_functions', 'test', '--out', 'json']);
  t.same(JSON.parse(fns.stdout), { db1: ['test.echo', 'test.ping', 'test.version'] });
});

t.test('--async prints the jid; jobs show lists returns; text output reads like salt', async (t) => {
  const r = await cluster.brine(['run', 'web*', 'test.echo', 'hello', '--async']);
  t.equal(r.code, 0, r.stderr);
  const jid = /job ID: (\d{20})/.exec(r.stdout)?.[1];
  t.ok(jid, r.stdout);
  const report = await until(async () => {
    const rep = await cluster.client.get<Report>(`/v1/jobs/${jid}`);
    return Object.keys(rep.returns).length === 2 ? rep : undefined;
  }, 'two returns');
  t.same(report.missing, []);
  const show = await cluster.brine(['jobs', 'show', jid!]);
  t.equal(show.code, 0, show.stderr);
  t.match(show.stdout, /web1:\n    hello\nweb2:\n    hello\n/);
  const list = await cluster.brine(['jobs', 'list', '--function', 'test.echo', '--minion', 'web2']);
  t.match(list.stdout, new RegExp(`${jid}:\\n    Function:   test.echo`));
});

t.test('a minion that does not return in time is listed as such; jobs active and kill_job', async (t) => {
  const r = await cluster.brine(['run', 'db1', 'cmd.run', 'sleep 30', '--timeout', '0.3', '--out', 'json']);
  t.equal(r.code, 1);
  t.same(JSON.parse(r.stdout), { db1: 'Minion did not return. [No response]' });
  const active = await cluster.client.get<{ active: Array<{ jid: string; fun: string; running: string[] }> }>('/v1/jobs/active');
  const sleeping = active.active.find((a) => a.fun === 'cmd.run');
  t.ok(sleeping, 'the sleeping job is active');
  t.same(sleeping!.running, ['db1']);
  const running = await cluster.brine(['run', 'db1', 'saltutil.running', '--out', 'json']);
  t.match(JSON.parse(running.stdout), { db1: [{ jid: sleeping!.jid, fun: 'cmd.run' }] });
  const kill = await cluster.brine(['run', 'db1', 'saltutil.kill_job', sleeping!.jid, '--out', 'json']);
  t.equal(kill.code, 0, kill.stdout + kill.stderr);
  const killed = await until(async () => {
    const rep = await cluster.client.get<Report>(`/v1/jobs/${sleeping!.jid}`);
    return rep.returns.db1 ? rep : undefined;
  }, 'the killed job returns');
  t.equal(killed.returns.db1!.success, false);
  t.match(killed.returns.db1!.return, /was killed/);
  const after = await cluster.client.get<{ active: unknown[] }>('/v1/jobs/active');
  t.same(after.active, []);
});

t.test('--batch runs a sliding window over the targeted minions', async (t) => {
  const r = await cluster.brine(['run', '*', 'test.ping', '--batch', '1', '--out', 'json']);
  t.equal(r.code, 0, r.stderr);
  t.equal(r.stdout.trim().split('\n').length, 3);
  const pct = await cluster.brine(['run', '*', 'test.ping', '--batch', '50%', '--out', 'json']);
  t.equal(pct.code, 0, pct.stderr);
  const bad = await cluster.brine(['run', '*', 'test.ping', '--batch', 'lots']);
  t.match(bad.stderr, /BRINE_ERR_MASTER_BAD_BATCH/);
});

t.test('the event bus streams job events in order, after they are stored', async (t) => {
  const seen: string[] = [];
  const ac = new AbortController();
  const opened = new Promise<void>((resolve) => {
    void cluster.client.events('brine/job/*', (ev) => {
      seen.push(ev.tag);
      if (seen.length === 3) ac.abort();
    }, ac.signal, resolve);
  });
  await opened;
  const r = await cluster.brine(['run', '-L', 'web1,web2', 'test.ping', '--async']);
  const jid = /(\d{20})/.exec(r.stdout)![1];
  await until(() => (seen.length === 3 ? true : undefined), 'three job events');
  t.equal(seen[0], `brine/job/${jid}/new`);
  t.same(seen.slice(1).sort(), [`brine/job/${jid}/ret/web1`, `brine/job/${jid}/ret/web2`]);
});
