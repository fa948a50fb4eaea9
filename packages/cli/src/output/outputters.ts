import { yamlLib } from '@brine/core';
import { cliErrors } from '../errors.js';
import { formatNested } from './highstate.js';

/**
 * Salt's outputter names, accepted by `--out` on every verb. `text` is each verb's own
 * rendering (the highstate outputter for state runs, salt-key's lists for keys, ...); the others
 * render the same data the same way everywhere.
 */
export const SALT_OUTPUTTERS = ['highstate', 'json', 'yaml', 'nested', 'raw', 'txt', 'quiet'] as const;
export type Outputter = (typeof SALT_OUTPUTTERS)[number] | 'text';

/**
 * The `--out` of a verb: one of Salt's names, `text`, or a name the verb adds (`aliases` map to
 * what they mean there, e.g. salt-key's `key` is the key verb's `text`). Unknown names are
 * usage errors, never a quiet fallback.
 */
export function outputOption(value: string | undefined, usage: string, fallback: Outputter, aliases: Record<string, Outputter> = {}): Outputter {
  if (value === undefined) return fallback;
  if (value in aliases) return aliases[value]!;
  if (value === 'text' || (SALT_OUTPUTTERS as readonly string[]).includes(value)) return value as Outputter;
  const known = [...new Set(['text', ...SALT_OUTPUTTERS, ...Object.keys(aliases)])];
  throw cliErrors.make('BRINE_ERR_CLI_USAGE', { detail: `unknown output '${value}' (one of ${known.join(', ')})`, usage });
}

/** Python-like one-line rendering of a value, as Salt's `raw` and `txt` print it. */
function pyRepr(v: unknown): string {
  if (v === null || v === undefined) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (typeof v === 'string') return `'${v.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  if (typeof v === 'number') return String(v);
  if (Array.isArray(v)) return `[${v.map(pyRepr).join(', ')}]`;
  return `{${Object.entries(v as Record<string, unknown>)
    .map(([k, x]) => `${pyRepr(k)}: ${pyRepr(x)}`)
    .join(', ')}}`;
}

/**
 * `data` (a dict keyed by minion id, or by whatever the verb lists) with one of the generic
 * outputters. `text` and `highstate` are the verb's own, so they are not rendered here.
 */
export function renderData(out: Exclude<Outputter, 'text' | 'highstate'>, data: unknown): string {
  switch (out) {
    case 'json':
      return JSON.stringify(data, null, 4) + '\n';
    case 'yaml':
      return yamlLib().stringify(data, { lineWidth: 0, aliasDuplicateObjects: false });
    case 'nested': {
      const lines = formatNested(data, 0);
      return lines.length ? lines.join('\n') + '\n' : '';
    }
    case 'raw':
      return pyRepr(data) + '\n';
    case 'txt':
      // one line a key, the value as Python prints it (strings bare), like Salt's txt outputter
      if (typeof data !== 'object' || data === null || Array.isArray(data)) return pyRepr(data) + '\n';
      return Object.entries(data)
        .map(([k, v]) => `${k}: ${typeof v === 'string' ? v : pyRepr(v)}\n`)
        .join('');
    case 'quiet':
      return '';
  }
}
