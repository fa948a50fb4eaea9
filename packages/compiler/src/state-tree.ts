import { sortEnvs } from '@brine/core';

/**
 * How the compiler reads a state tree. The stages never touch the disk: whoever calls them
 * passes one of these (a directory tree for `brine local`, the master's file roots, or an
 * in-memory map in tests).
 */
export interface StateTree {
  /** Environments in the order their top files are considered (`base` first). */
  envs(): string[];
  /** Every file in the env, as paths relative to its root with `/` separators, sorted. */
  list(env: string): string[];
  /** A file's text, or undefined when the env has no such file. */
  read(env: string, path: string): string | undefined;
}

/** A state tree held in memory: `{env: {path: text}}`. */
export function memoryTree(files: Record<string, Record<string, string>>): StateTree {
  return {
    envs: () => sortEnvs(Object.keys(files)),
    list: (env) => Object.keys(files[env] ?? {}).sort(),
    read: (env, path) => files[env]?.[path],
  };
}

export { sortEnvs };

/** All SLS references in an env: `a/b.sls` -> `a.b`, `a/init.sls` -> `a` (and `a.init`). */
export function slsIndex(tree: StateTree, env: string): Map<string, string> {
  const index = new Map<string, string>();
  for (const path of tree.list(env)) {
    if (!path.endsWith('.sls')) continue;
    const ref = path.slice(0, -4).split('/').join('.');
    if (ref === 'top') continue;
    if (ref.endsWith('.init')) {
      const pkg = ref.slice(0, -5);
      if (!index.has(pkg)) index.set(pkg, path);
    } else if (ref === 'init') {
      continue;
    }
    index.set(ref, path);
  }
  return index;
}

/** The file behind an SLS reference and its text: `edit.vim` -> `edit/vim.sls`, else `edit/vim/init.sls`. */
export function readSls(tree: StateTree, env: string, sls: string): { path: string; text: string } | undefined {
  const base = sls.split('.').join('/');
  for (const path of [`${base}.sls`, `${base}/init.sls`]) {
    const text = tree.read(env, path);
    if (text !== undefined) return { path, text };
  }
  return undefined;
}

/** The path of the file behind an SLS reference (see readSls, which also returns its text). */
export function resolveSls(tree: StateTree, env: string, sls: string): string | undefined {
  return readSls(tree, env, sls)?.path;
}
