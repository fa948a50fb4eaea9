import { spawn } from 'node:child_process';

/** What one git child process gave back. */
export interface GitOutput {
  code: number | null;
  stdout: Buffer;
  stderr: string;
  timedOut: boolean;
}

export interface GitRun {
  /** The repository (`git -C`). */
  cwd?: string;
  /** Seconds before the process is killed. */
  timeout: number;
  /** Added to git's environment (credential helpers, ssh command). */
  env?: Record<string, string>;
  /** Written to git's stdin, then closed. */
  input?: string;
}

/** stderr kept per run: git's complaint is in its first lines, a flood of progress is not. */
const STDERR_MAX = 16 * 1024;

/**
 * Runs the system git as a child process (never on the event loop's time: the master only waits
 * on its output). Prompts are off: a remote asking for a password fails at once rather than
 * hanging until the timeout.
 */
export function runGit(args: string[], o: GitRun): Promise<GitOutput> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', o.cwd ? ['-C', o.cwd, ...args] : args, {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_ASKPASS: 'true', SSH_ASKPASS: 'true', LC_ALL: 'C', ...o.env },
    });
    const out: Buffer[] = [];
    let err = '';
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, o.timeout * 1000);
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => {
      if (err.length < STDERR_MAX) err += d.toString('utf8');
    });
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout: Buffer.concat(out), stderr: err, timedOut });
    });
    child.stdin.on('error', () => {});
    child.stdin.end(o.input ?? '');
  });
}
