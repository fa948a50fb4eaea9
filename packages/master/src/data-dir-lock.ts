import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { masterErrors } from './errors.js';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists, it is just not ours to signal
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * One master per data_dir: two would write one store and answer one fleet's returns twice.
 * `master.lock` holds the owner's pid; a lock whose process is gone (a SIGKILLed master) is
 * taken over.
 */
export function lockDataDir(dataDir: string): { release(): void } {
  const file = path.join(dataDir, 'master.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(file, `${process.pid}\n`, { flag: 'wx', mode: 0o600 });
      let released = false;
      return {
        release() {
          if (released) return;
          released = true;
          rmSync(file, { force: true });
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw masterErrors.make('BRINE_ERR_MASTER_LOCKED', { file, detail: (err as Error).message });
      }
      const pid = Number(readFileSync(file, 'utf8').trim());
      // our own pid is a previous life of this process (a container restarting its pid 1)
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid)) {
        throw masterErrors.make('BRINE_ERR_MASTER_LOCKED', {
          file,
          detail: `another master (pid ${pid}) already uses this data_dir; stop it, or give this one its own data_dir`,
        });
      }
      rmSync(file, { force: true });
    }
  }
  throw masterErrors.make('BRINE_ERR_MASTER_LOCKED', { file, detail: 'the lock keeps being taken by another process' });
}
