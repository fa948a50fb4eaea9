import { existsSync } from 'node:fs';
import t from 'tap';
import { brine } from './helpers/proc.js';

t.test('brine demo: a master and three minions apply the example tree, then everything stops', async (t) => {
  const r = await brine(['demo'], { NO_COLOR: '1' });
  t.equal(r.code, 0, r.stderr + r.stdout);
  const dir = /data in (\S+)/.exec(r.stdout)?.[1];
  t.ok(dir, 'names its temp folder');
  t.match(r.stdout, /^db1:\n/m);
  t.match(r.stdout, /Summary for web2\n/);
  t.match(r.stdout, /Minions: 3 {2}succeeded: 3 {2}failed: 0 {2}changed: 3/);
  t.match(r.stdout, /States: {2}15 {2}succeeded: 15 {2}failed: 0/);
  t.match(r.stderr, /web1: \d+ more state\(s\) done/);
  t.match(r.stdout, /removed the demo folder/);
  t.notOk(existsSync(dir!), 'the temp folder is gone');
});

t.test('brine demo gives up with a clear error instead of hanging, and cleans up', async (t) => {
  const r = await brine(['demo', '--timeout', '0.001'], { NO_COLOR: '1' });
  t.equal(r.code, 1, r.stderr + r.stdout);
  t.match(r.stderr, /BRINE_ERR_CLI_DEMO: the demo stopped: minions .*db1.* did not connect within 0\.001 s/);
  const dir = /data in (\S+)/.exec(r.stdout)?.[1];
  t.notOk(existsSync(dir!), 'the temp folder is gone');
  const json = await brine(['demo', '--out', 'json'], { NO_COLOR: '1' });
  t.equal(json.code, 0, json.stderr);
  const db1 = json.stdout.split('\n').find((l) => l.startsWith('{"db1"'));
  t.ok(db1 && Object.keys(JSON.parse(db1).db1).length > 0, 'one JSON return per minion, as brine run --out json');
  const none = await brine(['demo', '--tree', '/nonexistent']);
  t.equal(none.code, 1);
  t.match(none.stderr, /no state tree at \/nonexistent\/states \(pass --tree DIR/);
});
