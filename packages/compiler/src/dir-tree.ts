import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { sortEnvs, type StateTree } from './state-tree.js';
import { servedTreeName } from '@brine/core';

/**
 * A state tree on disk: `{env: [root dirs]}` like Salt's file_roots; the first root holding a
 * path wins. Listings are read once and cached: a compile reads many files from few dirs.
 */
export function dirTree(roots: Record<string, string[]>): StateTree {
  const listings = new Map<string, string[]>();
  const list = (env: string): string[] => {
    let out = listings.get(env);
    if (out) return out;
    const seen = new Set<string>();
    for (const root of roots[env] ?? []) {
      const walk = (dir: string) => {
        let entries: string[];
        try {
          entries = readdirSync(dir);
        } catch {
          return;
        }
        for (const name of entries) {
          if (!servedTreeName(name)) continue;
          const full = join(dir, name);
          let st;
          try {
            st = statSync(full);
          } catch {
            continue;
          }
          if (st.isDirectory()) walk(full);
          else seen.add(relative(root, full).split(sep).join('/'));
        }
      };
      walk(root);
    }
    out = [...seen].sort();
    listings.set(env, out);
    return out;
  };
  return {
    envs: () => sortEnvs(Object.keys(roots)),
    list,
    read(env, path) {
      if (path.startsWith('/') || path.split('/').includes('..')) return undefined;
      for (const root of roots[env] ?? []) {
        try {
          return readFileSync(join(root, path), 'utf8');
        } catch {}
      }
      return undefined;
    },
  };
}
