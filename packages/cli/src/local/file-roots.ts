import { existsSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import type { Diagnostic } from '@brine/core';
import { cliErrors } from '../errors.js';

/**
 * `--file-root DIR` (base) and `--file-root ENV=DIR`, as `{env: [absolute dirs]}`. Salt's
 * default root (/srv/salt) is used when none is named and it exists; a named root must exist.
 */
export function parseFileRoots(specs: string[] | undefined, cwd: string): Record<string, string[]> {
  const roots: Record<string, string[]> = {};
  const given = specs ?? (existsSync('/srv/salt') ? ['/srv/salt'] : []);
  if (given.length === 0) roots.base = [];
  for (const spec of given) {
    const m = /^([A-Za-z0-9_-]+)=(.+)$/.exec(spec);
    const [env, dir] = m ? [m[1]!, m[2]!] : ['base', spec];
    const abs = resolve(cwd, dir);
    if (!existsSync(abs) || !statSync(abs).isDirectory()) {
      throw cliErrors.make('BRINE_ERR_CLI_BAD_FILE_ROOT', { root: spec, detail: 'is not a directory' });
    }
    (roots[env] ??= []).push(abs);
  }
  return roots;
}

/** Diagnostics name files relative to their file root; show them as paths the user can open. */
export function withUserPath(d: Diagnostic, roots: Record<string, string[]>, cwd: string): Diagnostic {
  if (!d.file) return d;
  for (const root of roots[d.env ?? 'base'] ?? Object.values(roots).flat()) {
    const full = join(root, d.file);
    if (existsSync(full)) return { ...d, file: relative(cwd, full) || full };
  }
  return d;
}
