import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { CommandOptions, CommandResult, CommandRunner } from '../state-module.js';

/** Time a timed-out command gets between SIGTERM and SIGKILL. */
const KILL_GRACE_MS = 2000;

/** Quotes one word for a POSIX shell. */
export function shellQuote(word: string): string {
  if (word !== '' && /^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** Salt strips trailing whitespace from a command's output. */
function trimOutput(s: string): string {
  return s.replace(/\s+$/, '');
}

function findRunuser(): string | undefined {
  for (const p of ['/usr/sbin/runuser', '/sbin/runuser', '/usr/bin/runuser', '/bin/runuser']) {
    if (existsSync(p)) return p;
  }
  return undefined;
}

/** The argv to execute: through the shell for a string, directly for an array, wrapped for runas. */
function buildArgv(command: string | string[], options: CommandOptions): string[] {
  const shell = options.shell ?? '/bin/sh';
  const argv = typeof command === 'string' ? [shell, '-c', command] : [...command];
  if (!options.runas) return argv;
  const runuser = findRunuser();
  if (runuser) return [runuser, '-u', options.runas, '--', ...argv];
  return ['su', '-s', shell, options.runas, '-c', argv.map(shellQuote).join(' ')];
}

/**
 * Runs commands on this host with child_process: a string through the shell (`shell`, default
 * /bin/sh), an array without one. `env` is merged over the current environment; `runas` (root
 * only) goes through runuser, or su where runuser is missing. A command that cannot start
 * answers like a shell would (retcode 127, the reason on stderr) instead of throwing.
 */
export function createCommandRunner(): CommandRunner {
  return {
    run(command: string | string[], options: CommandOptions = {}): Promise<CommandResult> {
      if (options.runas && typeof process.getuid === 'function' && process.getuid() !== 0) {
        const me = process.env.USER ?? String(process.getuid());
        if (options.runas !== me) {
          return Promise.resolve({
            retcode: 1,
            stdout: '',
            stderr: `cannot run as user '${options.runas}': only root can change user`,
            pid: 0,
          });
        }
      }
      if (Array.isArray(command) && command.length === 0) {
        return Promise.resolve({ retcode: 127, stdout: '', stderr: 'empty command', pid: 0 });
      }
      const argv = buildArgv(command, options);
      return new Promise<CommandResult>((resolve) => {
        const child = spawn(argv[0], argv.slice(1), {
          cwd: options.cwd,
          env: options.env ? { ...process.env, ...options.env } : process.env,
          stdio: [options.stdin !== undefined ? 'pipe' : 'ignore', 'pipe', 'pipe'],
          detached: true,
        });
        const out: Buffer[] = [];
        const err: Buffer[] = [];
        let timedOut = false;
        let settled = false;
        let timer: NodeJS.Timeout | undefined;
        let killTimer: NodeJS.Timeout | undefined;
        const killGroup = (signal: NodeJS.Signals) => {
          try {
            if (child.pid) process.kill(-child.pid, signal);
          } catch {
            /* already gone */
          }
        };
        let stopListening: (() => void) | undefined;
        /** SIGTERM to the process group, SIGKILL after a grace period if it is still there. */
        const terminate = () => {
          killGroup('SIGTERM');
          killTimer ??= setTimeout(() => killGroup('SIGKILL'), KILL_GRACE_MS);
          killTimer.unref();
        };
        const finish = (result: CommandResult) => {
          if (settled) return;
          settled = true;
          if (timer) clearTimeout(timer);
          if (killTimer) clearTimeout(killTimer);
          stopListening?.();
          resolve(result);
        };
        child.stdout?.on('data', (d: Buffer) => out.push(d));
        child.stderr?.on('data', (d: Buffer) => err.push(d));
        child.on('error', (e: NodeJS.ErrnoException) => {
          let reason = e.message;
          if (e.code === 'ENOENT' && options.cwd && !existsSync(options.cwd)) {
            reason = `working directory ${options.cwd} does not exist`;
          } else if (e.code === 'ENOENT') {
            reason = `${argv[0]}: command not found`;
          }
          finish({ retcode: 127, stdout: '', stderr: reason, pid: child.pid ?? 0 });
        });
        child.on('close', (code, signal) => {
          const stdout = trimOutput(Buffer.concat(out).toString('utf8'));
          const stderr = trimOutput(Buffer.concat(err).toString('utf8'));
          if (timedOut) {
            const secs = (options.timeoutMs ?? 0) / 1000;
            finish({ retcode: 1, stdout: `Timed out after ${secs} seconds`, stderr, pid: child.pid ?? 0 });
            return;
          }
          // Like a shell: killed by signal N reads as 128 + N.
          const retcode = code ?? (signal ? 128 + signalNumber(signal) : 1);
          finish({ retcode, stdout, stderr, pid: child.pid ?? 0 });
        });
        if (options.stdin !== undefined && child.stdin) {
          child.stdin.on('error', () => {
            /* the command did not read its input; not our failure */
          });
          child.stdin.end(options.stdin);
        }
        if (options.signal) {
          const signal = options.signal;
          if (signal.aborted) terminate();
          else {
            signal.addEventListener('abort', terminate, { once: true });
            stopListening = () => signal.removeEventListener('abort', terminate);
          }
        }
        if (options.timeoutMs !== undefined && options.timeoutMs > 0) {
          timer = setTimeout(() => {
            timedOut = true;
            terminate();
          }, options.timeoutMs);
        }
      });
    },
  };
}

function signalNumber(signal: NodeJS.Signals): number {
  const table: Record<string, number> = { SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGKILL: 9, SIGTERM: 15, SIGABRT: 6, SIGSEGV: 11, SIGPIPE: 13 };
  return table[signal] ?? 0;
}
