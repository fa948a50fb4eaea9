import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { TestRepo } from '../packages/fileserver/test/git-repo.ts';
import { Cluster } from './helpers/cluster.js';
import { startPostgres, type PostgresServer } from './support/postgres.js';

/**
 * Pillar from the pillar roots, git, a command and PostgreSQL (issue 26): merged in Salt's order
 * (each ext_pillar over what came before, in config order), seen by the minion's pillar.items,
 * and `brine pillar explain` naming the source of each value.
 */
const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-ext-pillar-e2e-'));
mkdirSync(path.join(dir, 'pillar'));
writeFileSync(path.join(dir, 'pillar', 'top.sls'), "base:\n  '*':\n    - common\n");
writeFileSync(path.join(dir, 'pillar', 'common.sls'), 'app:\n  name: roots\n  port: 80\n  tags: [a]\n');
const repo = new TestRepo(path.join(dir, 'repo'));
repo.commit('master', { 'top.sls': "base:\n  '*':\n    - git\n", 'git.sls': 'app:\n  port: 81\n  from_git: true\n' });
const cmd = path.join(dir, 'pillar.sh');
writeFileSync(cmd, '#!/bin/sh\nprintf "app:\\n  port: 8080\\nwho: %s\\n" "$1"\n');
chmodSync(cmd, 0o755);

let pg: PostgresServer;
let cluster: Cluster;
t.before(async () => {
  pg = await startPostgres();
  await pg.createDatabase('pillar');
  await pg.psql(
    "CREATE TABLE settings (minion text, app text, setting text, value text); INSERT INTO settings VALUES ('m1', 'app', 'db_host', 'db1'), ('m2', 'app', 'db_host', 'other');",
    'pillar',
  );
  cluster = new Cluster({
    minions: ['m1'],
    master: {
      pillar_roots: { base: [path.join(dir, 'pillar')] },
      postgres: { host: pg.host, port: pg.port, user: pg.user, db: 'pillar', pass_file: pg.passwordFile },
      ext_pillar: [
        { git: [`master file://${repo.bare}`] },
        { cmd_yaml: `${cmd} %s` },
        { postgres: ['SELECT app, setting, value FROM settings WHERE minion = %s'] },
      ],
      timeout: 60,
    },
  });
  await cluster.start();
});
t.teardown(async () => {
  await cluster?.close();
  await pg?.stop();
  rmSync(dir, { recursive: true, force: true });
});

t.test("the minion's pillar.items: every source merged in Salt's order", async (t) => {
  const r = await cluster.run('m1', 'pillar.items', [], { timeout: 60 });
  t.equal(r.returns.m1!.retcode, 0);
  t.strictSame(r.returns.m1!.return, { app: { name: 'roots', port: 8080, tags: ['a'], from_git: true, db_host: 'db1' }, who: 'm1' });
});

t.test('brine pillar explain names the source of each value', async (t) => {
  const r = await cluster.brine(['pillar', 'explain', 'm1', 'app']);
  t.equal(r.code, 0, r.stderr);
  const git = `ext_pillar:git master file://${repo.bare}`;
  t.equal(
    r.stdout,
    [
      'app.name: "roots"',
      '    from: pillar_roots',
      'app.port: 8080',
      `    from: ext_pillar:cmd_yaml ${cmd}`,
      `    shadows: ${git}, pillar_roots`,
      'app.tags: ["a"]',
      '    from: pillar_roots',
      'app.from_git: true',
      `    from: ${git}`,
      'app.db_host: "db1"',
      `    from: ext_pillar:postgres ${pg.user}@${pg.host}:${pg.port}/pillar`,
      '',
    ].join('\n'),
  );
});
