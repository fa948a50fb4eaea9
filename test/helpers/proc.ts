import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** The `brine` entry point the tests run; BRINE_BIN points elsewhere when needed. */
export const BIN = process.env.BRINE_BIN ?? path.join(REPO, 'packages/cli/dist/bin.js');

export type LogLine = Record<string, unknown> & { msg?: string; event?: string };

/**
 * A running `brine` process whose JSON log lines (stderr) are collected, so a test can wait for
 * a line to appear instead of sleeping.
 */
export class BrineProcess {
  readonly child: ChildProcess;
  readonly lines: LogLine[] = [];
  stderrText = '';
  stdoutText = '';
  exitCode: number | null = null;
  signal: NodeJS.Signals | null = null;
  private waiters: Array<{ pred: (l: LogLine) => boolean; resolve: (l: LogLine) => void }> = [];
  private exitWaiters: Array<() => void> = [];

  readonly name: string;
  constructor(name: string, args: string[], env: NodeJS.ProcessEnv = {}) {
    this.name = name;
    this.child = spawn(process.execPath, [BIN, ...args], {
      env: { ...process.env, BRINE_LOG_LEVEL: 'info', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let buf = '';
    this.child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      this.stderrText += chunk;
      buf += chunk;
      let i: number;
      while ((i = buf.indexOf('\n')) >= 0) {
        const raw = buf.slice(0, i);
        buf = buf.slice(i + 1);
        let line: LogLine;
        try {
          line = JSON.parse(raw) as LogLine;
        } catch {
          line = { msg: raw, raw: true };
        }
        this.lines.push(line);
        for (const w of [...this.waiters]) {
          if (w.pred(line)) {
            this.waiters.splice(this.waiters.indexOf(w), 1);
            w.resolve(line);
          }
        }
      }
    });
    this.child.stdout!.setEncoding('utf8').on('data', (c: string) => (this.stdoutText += c));
    this.child.on('exit', (code, signal) => {
      this.exitCode = code;
      this.signal = signal;
      for (const w of this.exitWaiters) w();
    });
  }

  get running(): boolean {
    return this.exitCode === null && this.signal === null;
  }

  /** The first log line (past or future) matching `pred`; `since` skips older lines. */
  waitFor(pred: (l: LogLine) => boolean, what: string, timeoutMs = 15_000, since = 0): Promise<LogLine> {
    const hit = this.lines.slice(since).find(pred);
    if (hit) return Promise.resolve(hit);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w.resolve !== done);
        reject(new Error(`${this.name}: no log line '${what}' within ${timeoutMs} ms\n${this.stderrText.slice(-3000)}`));
      }, timeoutMs);
      const done = (l: LogLine) => {
        clearTimeout(timer);
        resolve(l);
      };
      this.waiters.push({ pred, resolve: done });
    });
  }

  waitEvent(event: string, timeoutMs?: number, since = 0): Promise<LogLine> {
    return this.waitFor((l) => l.event === event, event, timeoutMs, since);
  }

  exited(): Promise<void> {
    if (!this.running) return Promise.resolve();
    return new Promise((resolve) => this.exitWaiters.push(resolve));
  }

  async kill(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    if (!this.running) return;
    const gone = this.exited();
    this.child.kill(signal);
    await gone;
  }
}

/** Runs a one-shot `brine` command to completion. */
export function brine(args: string[], env: NodeJS.ProcessEnv = {}, input?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { ...process.env, ...env },
      stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    if (input !== undefined) child.stdin!.end(input);
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

/** Polls `check` until it returns a value (not undefined) or the deadline passes. */
export async function until<T>(check: () => Promise<T | undefined> | T | undefined, what: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let delay = 20;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, delay));
    delay = Math.min(delay * 2, 200);
  }
}
