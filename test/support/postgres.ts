import { execFile } from 'node:child_process';
import { chmodSync, chownSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';

/**
 * A real PostgreSQL server for one test file: Debian's `postgresql` binaries, `initdb` and
 * `pg_ctl` in a temp dir, listening on a free port on 127.0.0.1 only, password (scram) auth.
 * As root, initdb refuses to run, so the server is run as the `postgres` system user in a
 * temp dir it owns. No mock and no skip: when PostgreSQL is missing this throws, naming the
 * package (scripts/test-deps.sh installs it as root).
 *
 *   const pg = await startPostgres();
 *   t.teardown(() => pg.stop());
 *   // pg.url (no password in it), pg.password, pg.passwordFile, pg.psql('select 1')
 */
export interface PostgresServer {
  host: '127.0.0.1';
  port: number;
  user: string;
  password: string;
  /** A file holding only the password, readable by this process (for `store_password_file`). */
  passwordFile: string;
  /** `postgres://USER@127.0.0.1:PORT/DB`, without the password. */
  url(database?: string): string;
  /** Runs SQL through `psql` as the superuser; resolves to its unaligned, tuples-only output. */
  psql(sql: string, database?: string, password?: string): Promise<string>;
  createDatabase(name: string): Promise<void>;
  /**
   * Stops the server (fast: sessions are cut off) and starts it again on the same port and data;
   * `whileDown` runs between the two (the server is started again even when it throws).
   */
  restart(whileDown?: () => Promise<void>): Promise<void>;
  /** The server's own log (for a failing test's diagnostics). */
  log(): string;
  stop(): Promise<void>;
}

const BIN_DIRS = ['/usr/lib/postgresql/17/bin', '/usr/lib/postgresql/16/bin', '/usr/lib/postgresql/15/bin'];

function pgBin(): string {
  for (const dir of BIN_DIRS) {
    try {
      readFileSync(join(dir, 'pg_ctl'));
      return dir;
    } catch {
      // try the next major version
    }
  }
  throw new Error('PostgreSQL is not installed (no pg_ctl under /usr/lib/postgresql/*/bin): apt-get install postgresql, or run scripts/test-deps.sh as root');
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { env: { ...process.env, ...env }, maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${cmd} ${args.join(' ')} failed: ${err.message}\n${stderr}`));
      else resolve(stdout);
    });
  });
}

const asRoot = process.getuid?.() === 0;

/** As root, runs the command as `postgres` (initdb and postgres refuse to run as root). */
function runAsServerUser(cmd: string, args: string[]): Promise<string> {
  return asRoot ? run('runuser', ['-u', 'postgres', '--', cmd, ...args]) : run(cmd, args);
}

export async function startPostgres(): Promise<PostgresServer> {
  const bin = pgBin();
  const dir = mkdtempSync(join(tmpdir(), 'brine-pg-'));
  const data = join(dir, 'data');
  const user = 'brine';
  const password = randomBytes(18).toString('base64url');
  const pwfile = join(dir, 'initdb-password');
  writeFileSync(pwfile, password + '\n', { mode: 0o600 });
  if (asRoot) {
    const { uid, gid } = postgresIds();
    chownSync(dir, uid, gid);
    chownSync(pwfile, uid, gid);
  }
  chmodSync(dir, 0o700);
  await runAsServerUser(join(bin, 'initdb'), ['-D', data, '-U', user, '--pwfile', pwfile, '-A', 'scram-sha-256', '-E', 'UTF8', '--locale', 'C', '--no-sync']);
  rmSync(pwfile);
  const port = await freePort();
  const logFile = join(dir, 'server.log');
  const start = () =>
    runAsServerUser(join(bin, 'pg_ctl'), [
      'start',
      '-w',
      '-t',
      '60',
      '-D',
      data,
      '-l',
      logFile,
      '-o',
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`,
    ]);
  await start();
  // The test process (root or not) reads the password from here; the server dir stays private.
  const passwordFile = join(mkdtempSync(join(tmpdir(), 'brine-pgpw-')), 'password');
  writeFileSync(passwordFile, password + '\n', { mode: 0o600 });
  let stopped = false;
  const server: PostgresServer = {
    host: '127.0.0.1',
    port,
    user,
    password,
    passwordFile,
    url: (database = 'postgres') => `postgres://${user}@127.0.0.1:${port}/${database}`,
    psql: (sql, database = 'postgres', pw = password) =>
      run(join(bin, 'psql'), ['-h', '127.0.0.1', '-p', String(port), '-U', user, '-d', database, '-X', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-c', sql], {
        PGPASSWORD: pw,
      }),
    createDatabase: async (name) => {
      await server.psql(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
    },
    log: () => {
      try {
        return readFileSync(logFile, 'utf8');
      } catch {
        return '';
      }
    },
    restart: async (whileDown) => {
      if (!whileDown) {
        await runAsServerUser(join(bin, 'pg_ctl'), ['restart', '-w', '-m', 'fast', '-D', data, '-l', logFile]);
        return;
      }
      await runAsServerUser(join(bin, 'pg_ctl'), ['stop', '-w', '-m', 'fast', '-D', data]);
      try {
        await whileDown();
      } finally {
        await start();
      }
    },
    stop: async () => {
      if (stopped) return;
      stopped = true;
      try {
        await runAsServerUser(join(bin, 'pg_ctl'), ['stop', '-w', '-m', 'fast', '-D', data]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
        rmSync(join(passwordFile, '..'), { recursive: true, force: true });
      }
    },
  };
  return server;
}

function postgresIds(): { uid: number; gid: number } {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('postgres:'));
  if (!line) throw new Error('no `postgres` system user (it comes with the postgresql package)');
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}
