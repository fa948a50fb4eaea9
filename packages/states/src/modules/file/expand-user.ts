import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import type { StateFunction } from '@brine/core';

/** The home directory of a user from the passwd file, as Python's pwd.getpwnam (undefined: no such user). */
function homeOf(user: string): string | undefined {
  try {
    for (const line of readFileSync('/etc/passwd', 'utf8').split('\n')) {
      const f = line.split(':');
      if (f[0] === user && f.length >= 7) return f[5];
    }
  } catch {
    // no passwd file: the name stays as written, as in Python
  }
  return undefined;
}

/** Python's os.path.expanduser: `~` and `~user` at the start of a path; anything else unchanged. */
export function expandUser(path: string): string {
  if (!path.startsWith('~')) return path;
  const slash = path.indexOf('/');
  const user = path.slice(1, slash === -1 ? undefined : slash);
  const home = user === '' ? (process.env.HOME ?? homedir()) : homeOf(user);
  if (home === undefined) return path;
  const rest = slash === -1 ? '' : path.slice(slash);
  return (home.replace(/\/+$/, '') || '/') + rest || '/';
}

/** Salt's file states expand `~` in the name before anything else (the tag keeps it as written). */
export function withExpandedName(fn: StateFunction): StateFunction {
  return {
    ...fn,
    run: (args, ctx) => fn.run(typeof args.name === 'string' && args.name.startsWith('~') ? { ...args, name: expandUser(args.name) } : args, ctx),
  };
}
