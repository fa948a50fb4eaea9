import { mkdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** A folder owned by this user (or root) that neither its group nor others can write to. */
export function trusted(path: string): boolean {
  const st = statSync(path);
  const uid = process.getuid?.();
  if (uid !== undefined && st.uid !== uid && st.uid !== 0) return false;
  return (st.mode & 0o022) === 0;
}

/**
 * Brine's per-user cache folder `<XDG_CACHE_HOME or ~/.cache>/brine/<name>` (or `base` when
 * given), made private if new; null when it cannot be made or someone else could write to it,
 * since what is read back from it is trusted.
 */
export function userCacheDir(name: string, base?: string): string | null {
  try {
    const root = base || join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'brine', name);
    mkdirSync(root, { recursive: true, mode: 0o700 });
    return trusted(root) ? root : null;
  } catch {
    return null;
  }
}
