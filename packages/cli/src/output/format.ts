import { stringify } from 'yaml';

export type OutFormat = 'highstate' | 'json' | 'yaml' | 'nested';

/** `{"local": value}` exactly like `salt-call --local --out json` (4-space indent). */
export function formatJson(minion: string, value: unknown): string {
  return JSON.stringify({ [minion]: value }, null, 4) + '\n';
}

export function formatYaml(minion: string, value: unknown): string {
  return stringify({ [minion]: value }, { lineWidth: 0, aliasDuplicateObjects: false });
}
