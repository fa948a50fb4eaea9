import { yamlLib } from '@brine/core';

/** What `brine local --out` prints with: Salt's outputter names. */
export type OutFormat = 'highstate' | 'json' | 'yaml' | 'nested' | 'raw' | 'txt' | 'quiet';

/** `{"local": value}` exactly like `salt-call --local --out json` (4-space indent), then `end`. */
export function formatJson(minion: string, value: unknown, end = '\n'): string {
  const text = JSON.stringify({ [minion]: value }, null, 4);
  return end ? text + end : text;
}

/** Items of a list made into text together by {@link writeJson} (~90 KB for plain states). */
export const JSON_PIECE_ITEMS = 256;

/**
 * {@link formatJson}'s text (without `end`) handed to `write` in pieces: a long list a chunk of
 * items at a time. Made whole, a 10,000-state lowstate was a 3.6 MB string, then 3.6 MB of UTF-8
 * for the stream, ~2,000 pages touched once; a chunk's pages are used again by the next. Each
 * chunk is stringified inside the same `{minion: [...]}`, so its items come out at the same
 * indent, byte for byte; the wrapper's opening and closing lines are cut where they repeat.
 */
export function writeJson(minion: string, value: unknown, write: (text: string) => void): void {
  if (!Array.isArray(value) || value.length <= JSON_PIECE_ITEMS || 'toJSON' in value) {
    write(formatJson(minion, value, ''));
    return;
  }
  // `{\n    "<minion>": [\n` before the items, `\n    ]\n}` after them
  const head = 10 + JSON.stringify(minion).length;
  const tail = 8;
  for (let i = 0; i < value.length; i += JSON_PIECE_ITEMS) {
    const text = JSON.stringify({ [minion]: value.slice(i, i + JSON_PIECE_ITEMS) }, null, 4);
    const last = i + JSON_PIECE_ITEMS >= value.length;
    const piece = text.slice(i === 0 ? 0 : head, last ? text.length : text.length - tail);
    write(last ? piece : piece + ',\n');
  }
}

export function formatYaml(minion: string, value: unknown): string {
  return yamlLib().stringify({ [minion]: value }, { lineWidth: 0, aliasDuplicateObjects: false });
}
