import t from 'tap';
import { Cluster } from './helpers/cluster.js';

const cluster = new Cluster({ minions: ['m1'] });
t.before(async () => {
  await cluster.start();
});
t.teardown(() => cluster.close());

t.test('a minion stopped with SIGTERM says so at info level, not "lost the master" at warn', async (t) => {
  const m = cluster.minions.get('m1')!;
  const before = new Date().toISOString();
  await m.kill('SIGTERM');
  // brine minions: last seen is the disconnect, not the last return
  const { until } = await import('./helpers/proc.js');
  const seen = await until(async () => {
    const r = await cluster.brine(['minions', '--out', 'json']);
    const m1 = (JSON.parse(r.stdout) as Array<{ id: string; connected: boolean; last_seen: string | null }>).find((x) => x.id === 'm1');
    return m1 && !m1.connected && m1.last_seen ? m1.last_seen : undefined;
  }, 'm1 seen as disconnected');
  t.ok(seen >= before, `last seen ${seen} is at the disconnect (after ${before})`);
  const lines = m.stderrText
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { level: number; msg: string });
  t.notOk(
    lines.some((l) => /lost the master/.test(l.msg)),
    'no warning about a lost master',
  );
  t.ok(lines.some((l) => l.level === 30 && l.msg === 'disconnected from the master (stopping)'));
  const ready = lines.findIndex((l) => l.msg === 'authenticated with the master');
  t.same(
    lines
      .slice(ready)
      .filter((l) => l.level >= 40)
      .map((l) => l.msg),
    [],
    'nothing at warn or above once running',
  );
});
