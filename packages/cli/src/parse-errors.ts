import { BrineError } from '@brine/core';
import { cliErrors } from './errors.js';

/** The long flags a usage text names (`--config`, `--out` ...). */
function flagsOf(usage: string): string[] {
  return [...new Set(usage.match(/--[a-z][a-z0-9-]*/g) ?? [])];
}

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cur = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = cur;
    }
  }
  return row[b.length]!;
}

/** The flag of `usage` closest to `flag`, when one is close enough to be a typo. */
export function closestFlag(flag: string, usage: string): string | undefined {
  let best: string | undefined;
  let bestD = Infinity;
  for (const f of flagsOf(usage)) {
    const d = distance(flag, f);
    if (d < bestD) [best, bestD] = [f, d];
  }
  return best !== undefined && bestD <= Math.max(2, Math.floor(flag.length / 3)) ? best : undefined;
}

/**
 * node:util parseArgs errors as usage errors a person can act on: the flag named, the closest
 * known flag suggested, and none of Node's advice about `--`. Anything else is returned as is.
 */
export function fromParseError(err: unknown, usage: string): unknown {
  const code = (err as { code?: string })?.code;
  if (typeof code !== 'string' || !code.startsWith('ERR_PARSE_ARGS_') || err instanceof BrineError) return err;
  const message = (err as Error).message;
  const flag = /'(-[^']*)'/.exec(message)?.[1];
  let detail: string;
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && flag) {
    const near = flag.startsWith('--') ? closestFlag(flag.split('=')[0]!, usage) : undefined;
    detail = `unknown option '${flag}'${near ? ` (did you mean '${near}'?)` : ''}`;
  } else if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    detail = message.replace(/^Option /, 'option ');
  } else if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') {
    detail = `unexpected argument ${/'([^']*)'/.exec(message)?.[0] ?? ''}`.trim();
  } else {
    detail = message.split('. To specify')[0]!;
  }
  return cliErrors.make('BRINE_ERR_CLI_USAGE', { detail, usage });
}
