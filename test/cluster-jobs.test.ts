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
  master: { nodegroups: { webs: 'L@web1,web2', all_but_db: 'N@webs and not db1', loop: 'N@loop' } },
});
t.before(async () => {
  await cluster.start();
});
t.teardown(() => cluster.close());

t.test('brine run test.ping reaches every minion and the job is stored', async (t) => {
  const r = await cluster.brine(['run', '*', 'test.ping', '--out', 'json']);
  t.equal(r.code, 0, r.stderr);
  const lines = r.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  t.same(lines, [{ db1: true }, { web1: true }, { web2: true }]);
  const { jobs } = await cluster.client.get<{ jobs: Array<{ fun: string; returned: number; expected: string[] }> }>('/v1/jobs?function=test.ping');
  t.equal(jobs[0]!.returned, 3);
  t.same(jobs[0]!.expected, ['db1', 'web1', 'web2']);
});

t.test('targeting: grain, nested grain, list, pcre, compound, nodegroup', async (t) => {
  const cases: Array<[string | string[], string, string[]]> = [
    ['role:web', 'grain', ['web1', 'web2']],
    ['deep:tier:gold', 'grain', ['db1']],
    [['web1', 'db1'], 'list', ['db1', 'web1']],
    ['^web[0-9]$', 'pcre', ['web1', 'web2']],
    ['deep:tier:^g', 'grain_pcre', ['db1']],
    ['127.0.0.0/8', 'ipcidr', ['db1', 'web1', 'web2']],
    ['G@role:db or web2', 'compound', ['db1', 'web2']],
    ['all_but_db', 'nodegroup', ['web1', 'web2']],
  ];
  for (const [tgt, tgt_type, want] of cases) {
    const r = await cluster.run(tgt, 'test.ping', [], { tgt_type });
    t.same(Object.keys(r.returns).sort(), want, `${tgt_type} ${String(tgt)}`);
  }
  // the CLI flags map to the same types
  const cli = await cluster.brine(['run', '-G', 'role:web', 'test.ping', '--out', 'json']);
  t.equal(cli.code, 0, cli.stderr);
  t.same(
    cli.stdout
      .trim()
      .split('\n')
      .map((l) => Object.keys(JSON.parse(l) as object)[0]),
    ['web1', 'web2'],
  );
});

t.test('a bad target expression is a clear coded error; an empty match too', async (t) => {
  const bad = await cluster.brine(['run', '-C', 'G@role:web and (', 'test.ping']);
  t.equal(bad.code, 1);
  t.match(bad.stderr, /BRINE_ERR_COMPILE_BAD_TARGET/);
  await t.rejects(cluster.run('nothing*', 'test.ping'), { code: 'BRINE_ERR_MASTER_NO_MINIONS' });
  await t.rejects(cluster.run('N@loop', 'test.ping', [], { tgt_type: 'compound' }), { code: 'BRINE_ERR_COMPILE_BAD_TARGET' });
});

t.test('cmd.run, cmd.run_all and argument checking', async (t) => {
  const r = await cluster.brine(['run', 'web1', 'cmd.run', 'echo out; echo err >&2', '--out', 'json']);
  t.same(JSON.parse(r.stdout), { web1: 'out\nerr' });
  const all = await cluster.run('web1', 'cmd.run_all', ['echo hi; exit 3']);
  const ret = all.returns.web1!;
  t.equal(ret.retcode, 3);
  t.equal(ret.success, false);
  t.match(ret.return, { retcode: 3, stdout: 'hi', stderr: '' });
  const missing = await cluster.run('web1', 'test.echo');
  t.match(missing.returns.web1, { success: false, return: /missing required argument 'text'/ });
  const extra = await cluster.run('web1', 'test.echo', ['a'], { kwarg: { nope: 1 } });
  t.match(extra.returns.web1!.return, /unexpected keyword argument 'nope'/);
  const badType = await cluster.run('web1', 'cmd.run', [{ a: 1 }]);
  t.match(badType.returns.web1!.return, /argument 'cmd' must be string or list/);
  const unknown = await cluster.run('web1', 'no.such');
  t.match(unknown.returns.web1!.return, /'no.such' is not available/);
  const echo = await cluster.brine(['run', 'web1', 'test.echo', '42', '--out', 'json']);
  t.same(JSON.parse(echo.stdout), { web1: 42 }, 'arguments are read as YAML');
  const g = await cluster.run('db1', 'grains.get', ['deep:tier']);
  t.equal(g.returns.db1!.return, 'gold');
  const items = await cluster.run('db1', 'grains.items');
  t.match(items.returns.db1!.return, { id: 'db1', kernel: String, os_family: String, ipv4: Array, num_cpus: Number });
  const fns = await cluster.run('db1', 'sys.list_functions', ['test']);
  const names = fns.returns.db1!.return as string[];
  t.ok(['test.echo', 'test.ping', 'test.version'].every((f) => names.includes(f)) && names.every((f) => f.startsWith('test.')), names.join(' '));
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
  t.match(show.stdout, /web1:\n {4}hello\nweb2:\n {4}hello\n/);
  const list = await cluster.brine(['jobs', 'list', '--function', 'test.echo', '--minion', 'web2']);
  t.match(list.stdout, new RegExp(`${jid}:\\n    Function:    test.echo`));
});

t.test('a minion that does not return in time is listed as such; jobs active and kill_job', async (t) => {
  const r = await cluster.brine(['run', 'db1', 'cmd.run', 'sleep 30', '--timeout', '0.3', '--out', 'json']);
  t.equal(r.code, 1);
  t.same(JSON.parse(r.stdout), { db1: 'Minion did not return. [No response]' });
  const active = await cluster.client.get<{ active: Array<{ jid: string; fun: string; running: string[] }> }>('/v1/jobs/active');
  const sleeping = active.active.find((a) => a.fun === 'cmd.run');
  t.ok(sleeping, 'the sleeping job is active');
  t.same(sleeping!.running, ['db1']);
  const running = await cluster.run('db1', 'saltutil.running');
  t.match(running.returns.db1!.return, [{ jid: sleeping!.jid, fun: 'cmd.run' }]);
  const cliActive = await cluster.brine(['jobs', 'active']);
  t.match(cliActive.stdout, new RegExp(`${sleeping!.jid}:\\n    Function:    cmd.run`));
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
  t.equal(r.stderr.match(/^Executing run on \['\w+'\]$/gm)?.length, 3, 'each batch announced (on stderr: stdout is JSON)');
  const text = await cluster.brine(['run', '*', 'test.ping', '--batch', '2']);
  t.equal(text.code, 0, text.stderr);
  const batches = [...text.stdout.matchAll(/^Executing run on \[(.*)\]$/gm)].map((m) => m[1]!.split(', ').length);
  t.same(batches.sort(), [1, 2], 'a window of two, then the last one, as Salt prints them');
  const pct = await cluster.run('*', 'test.ping', [], { batch: '50%' });
  t.equal(Object.keys(pct.returns).length, 3);
  await t.rejects(cluster.run('*', 'test.ping', [], { batch: 'lots' }), { code: 'BRINE_ERR_MASTER_BAD_BATCH' });
});

t.test('the event bus streams job events in order, after they are stored', async (t) => {
  const seen: string[] = [];
  const ac = new AbortController();
  const opened = new Promise<void>((resolve, reject) => {
    cluster.client
      .events(
        'brine/job/*',
        (ev) => {
          seen.push(ev.tag);
          if (seen.length === 3) ac.abort();
        },
        ac.signal,
        resolve,
      )
      .catch(reject);
  });
  await opened;
  const r = await cluster.brine(['run', '-L', 'web1,web2', 'test.ping', '--async']);
  const jid = /(\d{20})/.exec(r.stdout)![1];
  await until(() => (seen.length === 3 ? true : undefined), 'three job events');
  t.equal(seen[0], `brine/job/${jid}/new`);
  t.same(seen.slice(1).sort(), [`brine/job/${jid}/ret/web1`, `brine/job/${jid}/ret/web2`]);
});
