import { spawn } from 'node:child_process';
import { parse } from 'yaml';
import { isValidMinionId } from '@brine/protocol';
import type { Pillar } from '@brine/core';
import { ExtPillarFailure } from './ext-source.js';

/** The environment a pillar command gets: the master's, without the secrets the master was given. */
function commandEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.BRINE_STORE_PASSWORD;
  return env;
}

/**
 * Runs `command` through /bin/sh with each `%s` replaced by the minion id, as Salt's cmd_yaml and
 * cmd_json do (an id is checked against the minion id pattern first: letters, digits and `._@-`,
 * nothing a shell reads as syntax). Off the event loop; killed after `timeoutMs`; an output over
 * `maxBytes` kills it too. A non-zero exit fails the source (Salt parses the output whatever the
 * exit: a failed command would quietly leave its keys out of the pillar).
 */
export function runPillarCommand(command: string, id: string, o: { timeoutMs: number; maxBytes: number }): Promise<string> {
  if (!isValidMinionId(id)) return Promise.reject(new ExtPillarFailure(`minion id '${id}' is not a valid minion id; the command is not run`));
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/sh', ['-c', command.replaceAll('%s', id)], {
      stdio: ['ignore', 'pipe', 'ignore'],
      env: commandEnv(),
      // a group of its own: a stop kills what the command started too (they hold its output open)
      detached: true,
    });
    const chunks: Buffer[] = [];
    let size = 0;
    let why: string | undefined;
    const stop = (reason: string) => {
      why ??= reason;
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(() => stop(`timed out after ${o.timeoutMs / 1000} s`), o.timeoutMs);
    child.stdout.on('data', (b: Buffer) => {
      size += b.length;
      if (size > o.maxBytes) stop(`printed more than ${o.maxBytes} bytes`);
      else chunks.push(b);
    });
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(new ExtPillarFailure(`could not start /bin/sh: ${e.message}`));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (why) reject(new ExtPillarFailure(`the command ${why}`));
      else if (code !== 0) reject(new ExtPillarFailure(`the command exited with ${code ?? `signal ${signal}`}`));
      else resolve(Buffer.concat(chunks).toString('utf8'));
    });
  });
}

/** The command's output as pillar: a mapping (empty output is an empty pillar, as Salt reads it). */
export function parseCommandPillar(text: string, format: 'yaml' | 'json'): Pillar {
  let value: unknown;
  try {
    value = format === 'json' ? JSON.parse(text) : parse(text, { version: '1.1', maxAliasCount: 10_000 });
  } catch (e) {
    // the parser's message names line and column, never the output itself
    throw new ExtPillarFailure(`its output is not ${format.toUpperCase()}: ${(e as Error).message.split('\n')[0]}`);
  }
  if (value === null || value === undefined) return {};
  if (typeof value !== 'object' || Array.isArray(value))
    throw new ExtPillarFailure(`its output is ${Array.isArray(value) ? 'a list' : 'a scalar'}, not a mapping`);
  return value as Pillar;
}
