import { existsSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import type { Diagnostic } from '@brine/core';
import { cliErrors } from '../errors.js';

type RootKind = 'file' | 'pillar';

function checkedDir(kind: RootKind, spec: string, abs: string): string {
  if (!existsSync(abs) || !statSync(abs).isDirectory()) {
    throw cliErrors.make(kind === 'file' ? 'BRINE_ERR_CLI_BAD_FILE_ROOT' : 'BRINE_ERR_CLI_BAD_PILLAR_ROOT', { root: spec, detail: 'is not a directory' });
  }
  return abs;
}

/**
 * `--file-root DIR` (base) and `--file-root ENV=DIR` (likewise `--pillar-root`), as `{env:
 * [absolute dirs]}`. Without flags, the config file's roots; without those, Salt's default root
 * (/srv/salt, /srv/pillar) when it exists. A named root must exist.
 */
export function parseRoots(kind: RootKind, specs: string[] | undefined, cwd: string, fromConfig?: Record<string, string[]>): Record<string, string[]> {
  const roots: Record<string, string[]> = {};
  if (!specs && fromConfig) {
    for (const [env, dirs] of Object.entries(fromConfig)) roots[env] = dirs.map((d) => checkedDir(kind, d, resolve(cwd, d)));
    return roots;
  }
  const fallback = kind === 'file' ? '/srv/salt' : '/srv/pillar';
  const given = specs ?? (existsSync(fallback) ? [fallback] : []);
  if (given.length === 0 && kind === 'file') roots.base = [];
  for (const spec of given) {
    const m = /^([A-Za-z0-9_-]+)=(.+)$/.exec(spec);
    const [env, dir] = m ? [m[1]!, m[2]!] : ['base', spec];
    (roots[env] ??= []).push(checkedDir(kind, spec, resolve(cwd, dir)));
  }
  return roots;
}

/** `--file-root` (see parseRoots). */
export function parseFileRoots(specs: string[] | undefined, cwd: string): Record<string, string[]> {
  return parseRoots('file', specs, cwd);
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
