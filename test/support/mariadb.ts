import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';

/**
 * Debian's MariaDB (scripts/test-deps.sh installs it) in `root`, on a socket there only
 * (`<root>/mysqld.sock`, no TCP), root signing in without a password. Resolves once it takes
 * connections; the returned function stops it.
 */
export async function startMariadb(root: string): Promise<() => Promise<void>> {
  execFileSync('mariadb-install-db', ['--no-defaults', `--datadir=${root}/data`, '--auth-root-authentication-method=normal', '--skip-test-db', '--user=root'], {
    stdio: 'ignore',
  });
  const server = spawn(
    'mariadbd',
    ['--no-defaults', `--datadir=${root}/data`, `--socket=${root}/mysqld.sock`, '--skip-networking', '--user=root', `--pid-file=${root}/mysqld.pid`],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let log = '';
  await new Promise<void>((resolve, reject) => {
    server.stderr.on('data', (d: Buffer) => {
      log += d.toString();
      if (log.includes('ready for connections')) resolve();
    });
    server.once('exit', (code) => reject(new Error(`mariadbd exited (${code}): ${log.slice(-500)}`)));
  });
  return async () => {
    if (server.exitCode !== null) return;
    const exited = once(server, 'exit');
    server.kill();
    await exited;
  };
}
