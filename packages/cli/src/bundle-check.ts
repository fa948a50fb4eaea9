import { readFileSync, statSync } from 'node:fs';

/**
 * What scripts/bundle.mjs writes beside the bundle: each compiled module the bundle was made from
 * (relative to the bundle's folder), with its size and modification time in whole seconds (what a
 * release's tar and .deb keep).
 */
export interface BundleStamp {
  inputs: Record<string, [size: number, mtimeS: number]>;
}

export const STAMP_FILE = 'stamp.json';

/** A file's entry in the stamp. */
export function stampOf(file: string): [number, number] {
  const st = statSync(file);
  return [st.size, Math.trunc(st.mtimeMs / 1000)];
}

/**
 * Whether the bundle in `bundleDir` is made from the compiled modules there are now:
 * `missing` (no bundle: only `tsc -b` ran), `stale` (a module was compiled, or changed, after it),
 * or `fresh`. A stale bundle would run yesterday's code, so the CLI runs the modules instead.
 */
export function bundleState(bundleDir: string): 'fresh' | 'stale' | 'missing' {
  let stamp: BundleStamp;
  try {
    stamp = JSON.parse(readFileSync(`${bundleDir}/${STAMP_FILE}`, 'utf8')) as BundleStamp;
  } catch {
    return 'missing';
  }
  for (const [rel, [size, mtimeS]] of Object.entries(stamp.inputs)) {
    try {
      // a plain `dir/../x` (the kernel resolves it): path.join costs more than the stat here
      const [nowSize, nowMtimeS] = stampOf(`${bundleDir}/${rel}`);
      if (nowSize !== size || nowMtimeS !== mtimeS) return 'stale';
    } catch {
      return 'stale';
    }
  }
  return 'fresh';
}
