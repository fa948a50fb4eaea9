import t from 'tap';
import { execFileSync } from 'node:child_process';
import { basename, join } from 'node:path';
import { createRegistry, mysqlDatabaseModule, mysqlGrantsModule, mysqlUserModule } from '../src/index.js';
import { goldenCases, runGoldenCase } from './golden-cases.js';

/**
 * mysql_database, mysql_user and mysql_grants against Salt's results. Each run starts its own
 * MariaDB (Debian's mariadb-server) in the case's root through the case's setup.sh, as Salt's
 * run did, listening on a socket there only; the states connect with connection_unix_socket.
 * The server is stopped by cleanup.sh when the case ends (or killed when the test ends early).
 */

for (const caseDir of goldenCases('mysql')) {
  for (const mode of ['run', 'test'] as const) {
    t.test(`mysql/${basename(caseDir)} ${mode}`, async (t) => {
      const registry = (root: string) => {
        t.teardown(() => {
          try {
            execFileSync('pkill', ['-f', '--', `--datadir=${root}/data`], { stdio: 'ignore' });
          } catch {
            // nothing left to stop
          }
        });
        return createRegistry([mysqlDatabaseModule(), mysqlUserModule(), mysqlGrantsModule()]);
      };
      const after = (root: string) => {
        execFileSync('bash', [join(caseDir, 'cleanup.sh'), root], { stdio: 'ignore' });
      };
      for (const r of await runGoldenCase(caseDir, mode, { registry, after })) t.same(r.got, r.want, r.tag);
    });
  }
}
