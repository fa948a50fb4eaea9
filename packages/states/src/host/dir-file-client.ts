import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import { isAbsolute, join, relative, sep } from 'node:path';
import { servedTreeName, type FileClient } from '@brine/core';
import { statesErrors } from '../errors.js';

/** Splits `salt://path/to/file?saltenv=x` into the relative path and the env it names, if any. */
export function parseSaltUrl(url: string): { path: string; saltenv?: string } {
  if (!url.startsWith('salt://')) throw statesErrors.make('BRINE_ERR_STATES_BAD_URL', { url });
  let rest = url.slice('salt://'.length);
  let saltenv: string | undefined;
  const q = rest.indexOf('?');
  if (q >= 0) {
    const params = new URLSearchParams(rest.slice(q + 1));
    saltenv = params.get('saltenv') ?? params.get('env') ?? undefined;
    rest = rest.slice(0, q);
  }
  return { path: rest, saltenv };
}

function inside(root: string, p: string): boolean {
  const rel = relative(root, p);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel) && !rel.startsWith(`..${sep}`));
}

/**
 * A FileClient over local directories: `roots` maps each env to its file roots, searched in order
 * (the first root holding the file wins, like Salt's file_roots). Paths that try to leave the
 * root — `..` segments, absolute paths, symlinks pointing outside — are refused with an error.
 */
export function dirFileClient(roots: Record<string, string[]>): FileClient {
  return {
    async get(url: string, env: string): Promise<Buffer | undefined> {
      const { path, saltenv } = parseSaltUrl(url);
      const useEnv = saltenv ?? env;
      const dirs = roots[useEnv];
      if (!dirs) throw statesErrors.make('BRINE_ERR_STATES_UNKNOWN_ENV', { env: useEnv });
      const segments = path.split('/');
      if (path.startsWith('/') || isAbsolute(path) || segments.some((s) => s === '..') || path.includes('\0')) {
        throw statesErrors.make('BRINE_ERR_STATES_PATH_ESCAPE', { url, env: useEnv });
      }
      const clean = segments.filter((s) => s !== '' && s !== '.');
      if (clean.length === 0) return undefined;
      for (const dir of dirs) {
        let rootReal: string;
        try {
          rootReal = await realpath(dir);
        } catch {
          continue;
        }
        const candidate = join(rootReal, ...clean);
        let real: string;
        try {
          real = await realpath(candidate);
        } catch {
          continue; // not in this root
        }
        if (!inside(rootReal, real)) throw statesErrors.make('BRINE_ERR_STATES_PATH_ESCAPE', { url, env: useEnv });
        const st = await stat(real);
        if (!st.isFile()) continue;
        return readFile(real);
      }
      return undefined;
    },
    async list(prefix: string, env: string): Promise<string[]> {
      const dirs = roots[env];
      if (!dirs) throw statesErrors.make('BRINE_ERR_STATES_UNKNOWN_ENV', { env });
      const segments = prefix.split('/').filter((s) => s !== '' && s !== '.');
      if (segments.some((s) => s === '..') || prefix.includes('\0')) throw statesErrors.make('BRINE_ERR_STATES_PATH_ESCAPE', { url: prefix, env });
      const found = new Set<string>();
      for (const dir of dirs) {
        let rootReal: string;
        try {
          rootReal = await realpath(dir);
        } catch {
          continue;
        }
        // Like the master's file server: dot files served, VCS folders and symlinks out of the root skipped.
        const walk = async (abs: string, rel: string): Promise<void> => {
          let names: string[];
          try {
            names = (await readdir(abs)).sort();
          } catch {
            return;
          }
          for (const n of names) {
            if (!servedTreeName(n)) continue;
            const full = join(abs, n);
            let real: string;
            try {
              real = await realpath(full);
            } catch {
              continue;
            }
            if (!inside(rootReal, real)) continue;
            const st = await stat(real);
            const r = rel ? `${rel}/${n}` : n;
            if (st.isDirectory()) await walk(full, r);
            else if (st.isFile()) found.add(r);
          }
        };
        await walk(join(rootReal, ...segments), segments.join('/'));
      }
      return [...found].sort();
    },
  };
}
