/**
 * Salt's log level names (`salt/log/setup.py`) as the logger's (pino's) levels, so a config copied
 * from /etc/salt reads the same: `garbage` and `all` are below `trace`, `profile` between `debug`
 * and `info`; pino has no level there, so they take the nearest one that shows as much.
 */
const SALT_LEVELS: Record<string, string> = {
  all: 'trace',
  garbage: 'trace',
  trace: 'trace',
  debug: 'debug',
  profile: 'debug',
  info: 'info',
  warn: 'warn',
  warning: 'warn',
  error: 'error',
  critical: 'fatal',
  fatal: 'fatal',
  quiet: 'silent',
  silent: 'silent',
};

export const LOG_LEVEL_NAMES = Object.keys(SALT_LEVELS);

/** The logger's level for a Salt (or pino) level name, any case; undefined for an unknown name. */
export function loggerLevel(name: string): string | undefined {
  return Object.hasOwn(SALT_LEVELS, name.toLowerCase()) ? SALT_LEVELS[name.toLowerCase()] : undefined;
}

/** The known name closest to `name` (a typo of one or two letters), for a did-you-mean. */
export function closestName(name: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestD = Math.max(2, Math.floor(name.length / 4)) + 1;
  for (const k of known) {
    const d = editDistance(name, k);
    if (d < bestD) [best, bestD] = [k, d];
  }
  return best;
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row.push(Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1)));
    prev = row;
  }
  return prev[b.length]!;
}

/**
 * Options a daemon does not know, as Salt users bring them from /etc/salt: the refused ones
 * (named by the daemon: options whose silent absence would leave it less guarded than its operator
 * believes) fail in one error naming them all; the rest make one warning naming them all, with a
 * did-you-mean for a likely typo of a known option.
 */
export function unknownOptions(keys: string[], known: readonly string[], refused: Record<string, string>, file: string): { refuse?: string; warn: string } {
  const bad = keys.filter((k) => Object.hasOwn(refused, k));
  const name = (k: string) => {
    const near = closestName(k, known);
    return near ? `${k} (did you mean ${near}?)` : k;
  };
  const rest = keys.filter((k) => !bad.includes(k)).map(name);
  const warn = `${file}: ignoring option${rest.length > 1 ? 's' : ''} Brine does not know: ${rest.join(', ')}`;
  if (bad.length === 0) return { warn };
  return {
    refuse: `Salt option${bad.length > 1 ? 's' : ''} Brine does not implement, refused because ignoring ${bad.length > 1 ? 'them' : 'it'} would weaken what you configured: ${bad.map((k) => `${k} (${refused[k]})`).join('; ')}`,
    warn,
  };
}
