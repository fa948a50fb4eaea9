import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { startPostgres, type PostgresServer } from '../../../test/support/postgres.js';

/**
 * pg-pool drops its own 'error' listener while a client is checked out: the store keeps one
 * until release, or a connection cut mid-transaction (a server restart, an admin's
 * pg_terminate_backend) is an unhandled 'error' event that ends the master. The cut is made
 * in a child process, so a crash shows as its exit status.
 */
const here = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(here, '../../..');
let server: PostgresServer;
t.before(async () => {
  server = await startPostgres();
});
t.teardown(() => server.stop());

t.test('a client cut off while the store holds it fails that write, not the process', async (t) => {
  await server.createDatabase('brine_reset');
  const r = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      [`--import=${path.join(REPO, 'scripts/tap-ts-hooks.mjs')}`, path.join(here, 'support/pg-reset-mid-transaction.ts')],
      { env: { ...process.env, BRINE_TEST_PG_URL: server.url('brine_reset'), BRINE_TEST_PG_PASSWORD: server.password }, timeout: 60_000 },
      (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? -1) : 0, stdout, stderr }),
    );
  });
  t.equal(r.code, 0, r.stderr);
  t.match(r.stdout, /^first: failed: .*terminat/m, 'the cut write failed');
  t.match(r.stdout, /^second: stored$/m, 'the next write went through on a fresh connection');
  t.match(r.stdout, /^survived$/m);
});
