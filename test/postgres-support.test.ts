import t from 'tap';
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { startPostgres } from './support/postgres.js';

// The helper every PostgreSQL test (store backend, master cluster) starts its server with.
t.test('startPostgres runs a real server on 127.0.0.1 with password auth, and stop() ends it', async (t) => {
  const pg = await startPostgres();
  t.teardown(() => pg.stop());
  t.match(pg.url(), new RegExp(`^postgres://brine@127\\.0\\.0\\.1:${pg.port}/postgres$`));
  t.notMatch(pg.url(), pg.password, 'the URL never carries the password');
  t.equal(readFileSync(pg.passwordFile, 'utf8').trim(), pg.password);
  t.equal((await pg.psql('select 40 + 2')).trim(), '42');
  await pg.createDatabase('brine_store');
  t.equal((await pg.psql('select current_database()', 'brine_store')).trim(), 'brine_store');
  await t.rejects(pg.psql('select 1', 'postgres', 'wrong'), /password authentication failed/, 'a wrong password is refused');
  await pg.stop();
  const refused = await new Promise<boolean>((resolve) => {
    const s = connect(pg.port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(false);
    });
    s.once('error', () => resolve(true));
  });
  t.ok(refused, 'the port is closed after stop()');
});
