import { yamlLib } from '@brine/core';

/**
 * A data file given on the command line (`--grains`, `--pillar`), read as YAML 1.1 by the yaml
 * library. JSON (as grains dumps are) is read by JSON.parse, without loading that library, where
 * both readings agree (plainJson).
 */
export function parseDataText(text: string): unknown {
  const json = asJson(text);
  return json ? json.value : yamlLib().parse(text, { version: '1.1' });
}

/** How parseDataText reads `text`: 'json' (JSON.parse) or 'yaml' (the yaml library). */
export const dataTextWay = (text: string): 'json' | 'yaml' => (asJson(text) ? 'json' : 'yaml');

/** JSON.parse's value where YAML 1.1 reads the same (jsonPairs), else undefined. */
function asJson(text: string): { value: unknown } | undefined {
  const pairs = jsonPairs(text);
  if (pairs < 0) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  // JSON.parse keeps the last of duplicate keys where YAML refuses them
  return keyCount(value, 0) === pairs ? { value } : undefined;
}

/** The keys of every mapping in `v`; -1 past a depth YAML's reader might not reach. */
function keyCount(v: unknown, depth: number): number {
  if (v === null || typeof v !== 'object') return 0;
  if (depth > 64) return -1;
  const keys = Array.isArray(v) ? undefined : Object.keys(v);
  const items = keys ? keys.map((k) => (v as Record<string, unknown>)[k]) : (v as unknown[]);
  let n = keys ? keys.length : 0;
  for (let i = 0; i < items.length; i++) {
    const m = keyCount(items[i], depth + 1);
    if (m < 0) return -1;
    n += m;
  }
  return n;
}

/**
 * One pass over a text that may be JSON, checking that YAML 1.1 reads what JSON.parse would (if
 * it parses): a flow collection of double-quoted strings with only the escapes \" \\ \n \t (others
 * differ between YAML 1.1 and JSON or are read by other rules), printable characters, keys under
 * 1,000 characters on the line of their colon, not `__proto__` or `<<`, numbers without an
 * exponent (1e3 is a string in YAML 1.1) and of at most 15 digits, no tabs or CRs. The count
 * of its colons (key/value pairs), or -1 when YAML may read it otherwise.
 */
function jsonPairs(text: string): number {
  let i = 0;
  const n = text.length;
  while (i < n && (text.charCodeAt(i) === 32 || text.charCodeAt(i) === 10)) i++;
  const first = text.charCodeAt(i);
  if (first !== 123 && first !== 91) return -1;
  let colons = 0;
  let lastKeyAt = -1; // the end of the last string, while only spaces followed it on its line
  let lastKeyLen = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      const start = ++i;
      for (;;) {
        if (i >= n) return -1;
        const d = text.charCodeAt(i);
        if (d === 34) break;
        if (d === 92) {
          const e = text.charCodeAt(i + 1);
          if (e !== 34 && e !== 92 && e !== 110 && e !== 116) return -1;
          i += 2;
          continue;
        }
        if (d < 32 || (d >= 0x7f && d <= 0x9f) || (d >= 0xd800 && d <= 0xdfff) || d === 0x2028 || d === 0x2029 || d === 0xfeff || d >= 0xfffe) {
          return -1;
        }
        i++;
      }
      lastKeyAt = i;
      lastKeyLen = i - start;
      i++;
      continue;
    }
    if (c === 58) {
      if (lastKeyAt < 0 || lastKeyLen + i - lastKeyAt >= 1000) return -1;
      const key = lastKeyLen === 9 || lastKeyLen === 2 ? text.slice(lastKeyAt - lastKeyLen, lastKeyAt) : '';
      if (key === '__proto__' || key === '<<') return -1;
      colons++;
    } else if (c === 45 || (c >= 48 && c <= 57)) {
      let digits = 0;
      while (i < n) {
        const d = text.charCodeAt(i);
        if (d >= 48 && d <= 57) digits++;
        else if (d === 101 || d === 69) return -1;
        else if (d !== 45 && d !== 46 && d !== 43) break;
        i++;
      }
      if (digits > 15) return -1;
      lastKeyAt = -1;
      continue;
    } else if (c === 10) {
      lastKeyAt = -1;
    } else if (c !== 32 && c !== 44 && c !== 91 && c !== 93 && c !== 123 && c !== 125 && !(c >= 97 && c <= 122)) {
      return -1;
    }
    if (c !== 32) lastKeyAt = -1;
    i++;
  }
  return colons;
}
