import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';

/** Salt's salt.utils.path.which: the name itself when it is an executable file, else the first hit on PATH and then the system directories; or None. */
export function which(cmd: string): string | null {
  // a missing file is answered without an exception: most names are looked for in a dozen
  // folders, and a thrown error each cost ~1 ms of every `brine local` (grains)
  const isExec = (p: string) => {
    try {
      if (!statSync(p, { throwIfNoEntry: false })?.isFile()) return false;
      accessSync(p, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  };
  if (cmd === '') return null;
  if (isExec(cmd)) return cmd;
  // Salt adds the system dirs a login shell would have, so root tools are found from services
  const dirs = (process.env.PATH ?? '').split(path.delimiter).filter(Boolean);
  for (const d of ['/sbin', '/bin', '/usr/sbin', '/usr/bin', '/usr/local/sbin', '/usr/local/bin']) if (!dirs.includes(d)) dirs.push(d);
  for (const d of dirs) {
    const p = path.join(d, cmd);
    if (isExec(p)) return p;
  }
  return null;
}
