/**
 * The scalars of the fast YAML path (yaml-fast.ts): Salt's loader rules for plain scalars, shared
 * with the full loader (yaml-load.ts) so both agree, and the quoted forms the fast path reads.
 */

/**
 * A map's key positions as the fast readers record them: key, line, column, one key after another
 * in document order. Flat, with no object per key: a 10,000-state tree has tens of thousands.
 */
export type KeyPositions = Array<string | number>;

/** Map key positions, by map object. */
export type FastPositions = Map<object, KeyPositions>;

/** What a reader returns for text it leaves to the full parser. */
export const GIVE_UP = Symbol('give up');

/** Why the fast path last left a text to the full parser (BRINE_YAML_DEBUG lists them). */
export const declined = { why: '', line: 0 };

/** GIVE_UP, noting why (and where, when the reader knows the line). */
export function giveUp(why: string, line = 0): typeof GIVE_UP {
  declined.why = why;
  declined.line = line;
  return GIVE_UP;
}

/** The Salt loader's scalar rules, shared with the full loader (yaml-load.ts) so both agree. */
export const YAML_TRUE = /^(?:yes|Yes|YES|true|True|TRUE|on|On|ON)$/;
export const YAML_FALSE = /^(?:no|No|NO|false|False|FALSE|off|Off|OFF)$/;
export const YAML_INT = /^[-+]?(?:0|[1-9][0-9_]*)$/;
export const YAML_EXP = /^[-+]?(?:[0-9][0-9_]*)?\.[0-9_]*[eE][-+][0-9]+$/;
/** PyYAML's float: a digit before the dot, or right after a dot with no sign (`.`, `-.5` are strings). */
export const YAML_FLOAT = /^(?:[-+]?[0-9][0-9_]*\.[0-9_]*|\.[0-9][0-9_]*)$/;

const BOOLEAN_WORDS = new Map<string, boolean>([
  ...['yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON'].map((w): [string, boolean] => [w, true]),
  ...['no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF'].map((w): [string, boolean] => [w, false]),
]);

/** Salt: `0644` -> 644 (decimal); a signed `0o`-style one stays octal as in PyYAML. */
export function saltOctal(src: string): number {
  const s = src.replace(/_/g, '');
  if (s.startsWith('0')) return parseInt(s.replace(/^0+/, '') || '0', 10);
  return (s.startsWith('-') ? -1 : 1) * parseInt(s.slice(2), 8);
}

/** YAML 1.1's base 60 (`1:30` is 90); other text with a colon (`127.0.0.1:8500`, `::1`) is a string. */
const SEXAGESIMAL = /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/;

/** Resolves a plain scalar the way the Salt loader does (see yaml-load.ts). */
export function plain(s: string): unknown {
  if (s === '' || s === '~' || s === 'null' || s === 'Null' || s === 'NULL') return null;
  const c = s.charCodeAt(0);
  // Only strings that cannot be anything else skip the checks below.
  if ((c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 47 || c === 95) {
    // YAML_TRUE's and YAML_FALSE's words, looked up (most keys and values are neither; none is longer than 5)
    return s.length > 5 ? s : (BOOLEAN_WORDS.get(s) ?? s);
  }
  if (YAML_INT.test(s)) return Number(s.replace(/_/g, ''));
  if (/^[-+]?0[0-7_]+$/.test(s)) return saltOctal(s);
  if (/^[-+]?0x[0-9a-fA-F_]+$/.test(s) || /^[-+]?0b[01_]+$/.test(s) || SEXAGESIMAL.test(s) || /^[-+]?\.(?:inf|Inf|INF)$|^\.(?:nan|NaN|NAN)$/.test(s)) {
    return giveUp('hex, binary, base 60 or inf/nan scalar');
  }
  if (YAML_FLOAT.test(s)) return Number(s.replace(/_/g, ''));
  if (YAML_EXP.test(s)) return Number(s.replace(/_/g, ''));
  return s;
}

export const SPECIAL_START = /^[[\]{}#&*!|>'"%@`,]|^[-?:](?:\s|$)/;

/** A scalar in value or key position; GIVE_UP when it is not one we handle. */
export function scalar(raw: string): unknown {
  let s = raw;
  // `{}` and `[]`, the empty defaults map files are full of; other flow collections: the full parser
  if (s.startsWith('{}') || s.startsWith('[]')) return trailingOk(s.slice(2)) ? (s[0] === '{' ? {} : []) : giveUp('text after an empty flow collection');
  if (s.startsWith("'")) {
    const end = s.indexOf("'", 1);
    if (end < 0) return giveUp('single-quoted scalar over lines');
    let v = s.slice(1, end);
    let rest = s.slice(end + 1);
    while (rest.startsWith("'")) {
      const next = rest.indexOf("'", 1);
      if (next < 0) return giveUp('single-quoted scalar over lines');
      v += "'" + rest.slice(1, next);
      rest = rest.slice(next + 1);
    }
    return trailingOk(rest) ? v : giveUp('text after a quoted scalar');
  }
  if (s.startsWith('"')) {
    const m = /^"((?:[^"\\\t]|\\["\\/nt])*)"(.*)$/.exec(s);
    // other escapes and lines below: the reader's quotedLines
    if (!m || !trailingOk(m[2])) return giveUp('double-quoted scalar: escape or lines');
    return JSON.parse('"' + m[1] + '"');
  }
  if (SPECIAL_START.test(s)) return giveUp('indicator starts a scalar (anchor, alias, tag, flow)');
  const hash = s.indexOf(' #');
  if (hash >= 0) s = s.slice(0, hash);
  s = s.trimEnd();
  if (s.includes(': ') || s.endsWith(':') || s.includes('\t')) return giveUp('colon or tab in a plain scalar');
  return plain(s);
}

export function trailingOk(rest: string): boolean {
  const r = rest.trim();
  return r === '' || (r.startsWith('#') && /^\s/.test(rest));
}

/** Double-quoted escapes (PyYAML's and the yaml library's alike); \\N \\_ \\L \\P are left to the full parser. */
const ESCAPES: Record<string, string> = {
  '0': '\0',
  a: '\x07',
  b: '\b',
  t: '\t',
  '\t': '\t',
  n: '\n',
  v: '\v',
  f: '\f',
  r: '\r',
  e: '\x1b',
  ' ': ' ',
  '"': '"',
  '\\': '\\',
  '/': '/',
};
const HEX_LENGTH: Record<string, number> = { x: 2, u: 4, U: 8 };

/** The escape after a backslash at `text[i]`: its text and how many characters it took; undefined: not one we read. */
export function escapeAt(text: string, i: number): { s: string; len: number } | undefined {
  const c = text[i];
  const simple = ESCAPES[c];
  if (simple !== undefined) return { s: simple, len: 1 };
  const n = HEX_LENGTH[c];
  if (n === undefined) return undefined;
  const hex = text.slice(i + 1, i + 1 + n);
  if (!new RegExp(`^[0-9a-fA-F]{${n}}$`).test(hex)) return undefined;
  const code = parseInt(hex, 16);
  // a lone surrogate or past Unicode: the full parser says what it makes of them
  if ((code >= 0xd800 && code <= 0xdfff) || code > 0x10ffff) return undefined;
  return { s: String.fromCodePoint(code), len: 1 + n };
}
