import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';

export const SSHD = '/usr/sbin/sshd';

/** Why a real sshd cannot run here (Debian's openssh-server, as root), or undefined when it can. */
export function sshdUnavailable(): string | undefined {
  if (process.getuid?.() !== 0) return 'not root';
  if (!existsSync(SSHD)) return 'no /usr/sbin/sshd (apt-get install openssh-server)';
  if (spawnSync('ssh', ['-V']).status !== 0) return 'no ssh client';
  return undefined;
}

/** A port the kernel hands out now (sshd cannot be told to pick one itself). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/**
 * A real OpenSSH server on 127.0.0.1 for root logins with a throwaway host key and client key:
 * `sshOptions` are what a client needs to reach it with the host key checked (no trust on first
 * use). Stop it with `close()`.
 */
export class Sshd {
  readonly dir: string;
  port = 0;
  private child?: ChildProcess;
  private gone?: Promise<void>;

  constructor(dir: string) {
    this.dir = dir;
    mkdirSync(dir, { recursive: true });
  }

  get clientKey(): string {
    return path.join(this.dir, 'client_key');
  }

  get knownHosts(): string {
    return path.join(this.dir, 'known_hosts');
  }

  /** ssh options for `brine bootstrap`: the client key, and this server's host key as the only one known. */
  get sshOptions(): string[] {
    return ['-i', this.clientKey, '-o', `UserKnownHostsFile=${this.knownHosts}`, '-o', 'StrictHostKeyChecking=yes'];
  }

  async start(): Promise<void> {
    const d = this.dir;
    for (const name of ['host_key', 'client_key']) execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', name, '-f', path.join(d, name)]);
    writeFileSync(path.join(d, 'authorized_keys'), readFileSync(`${this.clientKey}.pub`));
    this.port = await freePort();
    writeFileSync(this.knownHosts, `[127.0.0.1]:${this.port} ${readFileSync(path.join(d, 'host_key.pub'), 'utf8')}`);
    writeFileSync(
      path.join(d, 'sshd_config'),
      [
        `Port ${this.port}`,
        'ListenAddress 127.0.0.1',
        `HostKey ${d}/host_key`,
        `AuthorizedKeysFile ${d}/authorized_keys`,
        `PidFile ${d}/sshd.pid`,
        'UsePAM no',
        'PermitRootLogin prohibit-password',
        'PasswordAuthentication no',
        'KbdInteractiveAuthentication no',
        // the temp dir's modes are not sshd's business here
        'StrictModes no',
        'LogLevel INFO',
        '',
      ].join('\n'),
    );
    // sshd's privilege separation directory; Debian's init script makes it
    mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
    const child = spawn(SSHD, ['-D', '-e', '-f', path.join(d, 'sshd_config')], { stdio: ['ignore', 'ignore', 'pipe'] });
    this.child = child;
    this.gone = new Promise((resolve) => child.once('exit', () => resolve()));
    await new Promise<void>((resolve, reject) => {
      let log = '';
      child.stderr!.setEncoding('utf8').on('data', (c: string) => {
        log += c;
        if (log.includes(`Server listening on 127.0.0.1 port ${this.port}`)) resolve();
      });
      child.once('exit', (code) => reject(new Error(`sshd exited (${code}) before listening:\n${log}`)));
    });
  }

  async close(): Promise<void> {
    if (!this.child || this.child.exitCode !== null) return;
    this.child.kill('SIGTERM');
    await this.gone;
  }
}

/**
 * Stops a background process that is not our child (a bootstrapped minion's supervisor) by the pid
 * in its pid file, and waits for it to be gone (`tail --pid` returns when it exits).
 */
export function stopByPidFile(pidFile: string): void {
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').trim());
  if (!(pid > 1)) return;
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    return;
  }
  spawnSync('tail', [`--pid=${pid}`, '-f', '/dev/null'], { timeout: 20_000 });
}
