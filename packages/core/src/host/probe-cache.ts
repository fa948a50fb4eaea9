import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, realpathSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { userCacheDir } from './cache-dir.js';
import { forgetAtSnapshotRestore } from './snapshot-restore.js';

let dir: string | null | undefined;
forgetAtSnapshotRestore(() => (dir = undefined));

/**
 * What a host program prints about itself (`systemctl --version`), kept on disk per binary:
 * grains ask on every `brine local`, where a spawn costs about 3 ms and a read 0.05. The key is
 * the binary's real path, inode, size and times, so an upgraded program is asked again.
 * BRINE_PROBE_CACHE=off turns it off; failures to read or write are ignored.
 */
export function probeOutput(program: string, args: string[]): string | undefined {
  if (dir === undefined) dir = process.env.BRINE_PROBE_CACHE === 'off' ? null : userCacheDir('probes');
  let file: string | undefined;
  if (dir) {
    try {
      const real = realpathSync(program);
      const st = statSync(real);
      const key = [real, st.ino, st.size, st.mtimeMs, st.ctimeMs, ...args].join('\0');
      file = join(dir, `${createHash('sha256').update(key).digest('hex').slice(0, 40)}.txt`);
      return readFileSync(file, 'utf8');
    } catch {
      // not cached yet
    }
  }
  const out = hostOutput(program, args);
  if (file !== undefined && out !== undefined) {
    try {
      const tmp = `${file}.${process.pid}.tmp`;
      writeFileSync(tmp, out, { mode: 0o600 });
      renameSync(tmp, file);
    } catch {
      // a read-only cache only costs the spawn
    }
  }
  return out;
}

/** A program's output, or undefined when it cannot run (grains never fail the minion). */
export function hostOutput(program: string, args: string[]): string | undefined {
  try {
    return execFileSync(program, args, { encoding: 'utf8', timeout: 5000, stdio: ['ignore', 'pipe', 'pipe'] });
  } catch {
    return undefined;
  }
}
