import { createHash } from 'node:crypto';
import { createReadStream, statSync } from 'node:fs';
import path from 'node:path';
import { cliErrors } from '../errors.js';

export interface ReleaseTarball {
  file: string;
  version: string;
  /** linux-ARCH as the release names it: x64, arm64. */
  arch: string;
  /** sha256 of the file: what a target's <prefix>/.brine-release records once installed. */
  sha256: string;
}

/** `uname -m` on a target -> the release's architecture name. */
export const MACHINE_ARCH: Record<string, string> = { x86_64: 'x64', amd64: 'x64', aarch64: 'arm64', arm64: 'arm64' };

/** A release tarball of `npm run release`, named brine-VERSION-linux-ARCH.tar.gz, with its hash. */
export async function readTarball(file: string): Promise<ReleaseTarball> {
  const fail = (detail: string) => cliErrors.make('BRINE_ERR_CLI_BOOTSTRAP_TARBALL', { file, detail });
  const m = /^brine-(.+)-linux-([a-z0-9]+)\.tar\.gz$/.exec(path.basename(file));
  if (!m) throw fail('not named brine-VERSION-linux-ARCH.tar.gz');
  try {
    if (!statSync(file).isFile()) throw new Error('not a file');
  } catch (err) {
    throw fail((err as Error).message);
  }
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return { file: path.resolve(file), version: m[1]!, arch: m[2]!, sha256: hash.digest('hex') };
}
