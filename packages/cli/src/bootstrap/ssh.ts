import { spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import { cliErrors } from '../errors.js';
import type { HostSpec } from './host-spec.js';

export interface SshResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Options every ssh call gets: never a prompt, a bounded connect, the operator's -i/-o/-F. */
export function sshArgs(host: HostSpec, passThrough: string[]): string[] {
  return [
    '-o',
    'BatchMode=yes',
    '-o',
    'ConnectTimeout=15',
    '-o',
    'ServerAliveInterval=15',
    ...passThrough,
    ...(host.port !== undefined ? ['-p', String(host.port)] : []),
    ...(host.user !== undefined ? ['-l', host.user] : []),
    '--',
    host.host,
  ];
}

/** Bytes of output kept from one remote command (a public key and a few words are expected). */
const MAX_OUTPUT = 64 * 1024;

/**
 * Runs one remote command with the system's OpenSSH client (the operator's known_hosts, agent and
 * ssh_config apply). stdin is a string, a stream (the tarball) or nothing.
 */
export function ssh(host: HostSpec, passThrough: string[], command: string, stdin?: string | Readable): Promise<SshResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('ssh', [...sshArgs(host, passThrough), command], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      if (stdout.length < MAX_OUTPUT) stdout += c;
    });
    child.stderr.setEncoding('utf8').on('data', (c: string) => {
      if (stderr.length < MAX_OUTPUT) stderr += c;
    });
    child.once('error', (err) =>
      reject(cliErrors.make('BRINE_ERR_CLI_BOOTSTRAP_SSH', { host: host.spec, step: 'start', detail: `cannot run ssh: ${err.message}` })),
    );
    // a remote side that stops reading (a failed tar) must not fail the write with an unhandled EPIPE
    child.stdin.on('error', () => {});
    if (typeof stdin === 'string') child.stdin.end(stdin);
    else if (stdin) stdin.pipe(child.stdin);
    else child.stdin.end();
    child.once('close', (code) => resolve({ code: code ?? 255, stdout, stderr }));
  });
}

/** Printable text of what a target said, for an error message: no control characters, bounded. */
export function shown(text: string, max = 600): string {
  const clean = text.replace(/[\x00-\x08\x0b-\x1f\x7f\x80-\x9f]/g, '?').trim();
  return clean.length > max ? `${clean.slice(0, max)}...` : clean;
}

/** Runs a step and turns a non-zero exit into the host's coded failure, naming the step. */
export async function sshStep(host: HostSpec, passThrough: string[], step: string, command: string, stdin?: string | Readable): Promise<string> {
  const r = await ssh(host, passThrough, command, stdin);
  if (r.code !== 0) {
    const said = shown(r.stderr || r.stdout) || 'no output';
    throw cliErrors.make('BRINE_ERR_CLI_BOOTSTRAP_SSH', { host: host.spec, step, detail: `exit ${r.code}: ${said}` });
  }
  return r.stdout;
}
