/**
 * What a YAML or JSON text parses to, by the text: formulas import the same map files from
 * every SLS and run the same `load_yaml` over the same rendered text, and parsing them again was
 * most of their compile. Each use gets a copy, as Salt parses each import anew: one SLS changing
 * what it loaded (`{% do defaults.update(...) %}`) changes nothing another SLS, or another
 * import, sees. Keyed by content, so it holds across compiles; bounded by the text it keeps.
 */
import { keysOf, setKey } from '@brine/core';

const parsed = new Map<string, unknown>();
const MAX_CHARS = 16_000_000;
let chars = 0;
const stats = { parses: 0, hits: 0 };

/** How many texts were parsed, and how many loads found their text parsed (tests). */
export function importCacheStats(): { parses: number; hits: number } {
  return { ...stats };
}

/** `parse(text)` once per distinct text (a failure is not kept: it throws again), copied on use. */
export function parsedOnce(kind: string, text: string, parse: () => unknown): unknown {
  const key = kind + '\0' + text;
  let value = parsed.get(key);
  if (value === undefined && !parsed.has(key)) {
    value = parse();
    stats.parses++;
    if (chars + key.length > MAX_CHARS) {
      parsed.clear();
      chars = 0;
    }
    parsed.set(key, value);
    chars += key.length;
  } else {
    stats.hits++;
  }
  return copyParsed(value);
}

/** A fresh copy of parsed data (plain objects, lists, scalars), its key order kept. */
export function copyParsed(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(copyParsed);
  if (v === null || typeof v !== 'object') return v;
  const proto = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) return v;
  const out: Record<string, unknown> = {};
  for (const k of keysOf(v)) setKey(out, k, copyParsed((v as Record<string, unknown>)[k]));
  return out;
}
