import { yamlLib } from '@brine/core';

/** What `brine local --out` prints with: Salt's outputter names. */
export type OutFormat = 'highstate' | 'json' | 'yaml' | 'nested' | 'raw' | 'txt' | 'quiet';

/** `{"local": value}` exactly like `salt-call --local --out json` (4-space indent), then `end`. */
export function formatJson(minion: string, value: unknown, end = '\n'): string {
  const text = JSON.stringify({ [minion]: value }, null, 4);
  return end ? text + end : text;
}

export function formatYaml(minion: string, value: unknown): string {
  return yamlLib().stringify({ [minion]: value }, { lineWidth: 0, aliasDuplicateObjects: false });
}
