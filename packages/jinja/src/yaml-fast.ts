/**
 * A fast path for the YAML most SLS files are made of: block maps and sequences of plain or
 * simply quoted scalars, one per line. Anything else (flow collections, anchors, block
 * scalars, multi-line scalars, tabs, duplicate keys, ...) returns undefined and the caller
 * uses the full `yaml` parser, so the result is the same either way — only faster (the full
 * parser reads about 100k lines a second; SLS trees of 10,000 states have far more).
 */
import { setKey } from '@brine/core';

export interface FastPos {
  line: number;
  column: number;
}

/** Map key positions, by map object. */
export type FastPositions = WeakMap<object, Map<string, FastPos>>;

export interface FastResult {
  value: unknown;
  positions: FastPositions;
}

const GIVE_UP = Symbol('give up');

/** The Salt loader's scalar rules, shared with the full loader (yaml-load.ts) so both agree. */
export const YAML_TRUE = /^(?:yes|Yes|YES|true|True|TRUE|on|On|ON)$/;
export const YAML_FALSE = /^(?:no|No|NO|false|False|FALSE|off|Off|OFF)$/;
export const YAML_INT = /^[-+]?(?:0|[1-9][0-9_]*)$/;
export const YAML_EXP = /^[-+]?(?:[0-9][0-9_]*)?\.[0-9_]*[eE][-+][0-9]+$/;
/** PyYAML's float: a digit before the dot, or right after a dot with no sign (`.`, `-.5` are strings). */
export const YAML_FLOAT = /^(?:[-+]?[0-9][0-9_]*\.[0-9_]*|\.[0-9][0-9_]*)$/;

/** Salt: `0644` -> 644 (decimal); a signed `0o`-style one stays octal as in PyYAML. */
export function saltOctal(src: string): number {
  const s = src.replace(/_/g, '');
  if (s.startsWith('0')) return parseInt(s.replace(/^0+/, '') || '0', 10);
  return (s.startsWith('-') ? -1 : 1) * parseInt(s.slice(2), 8);
}

/** Resolves a plain scalar the way the Salt loader does (see yaml-load.ts). */
function plain(s: string): unknown {
  if (s === '' || s === '~' || s === 'null' || s === 'Null' || s === 'NULL') return null;
  const c = s.charCodeAt(0);
  // Only strings that cannot be anything else skip the checks below.
  if ((c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 47 || c === 95) {
    if (YAML_TRUE.test(s)) return true;
    if (YAML_FALSE.test(s)) return false;
    return s;
  }
  if (YAML_INT.test(s)) return Number(s.replace(/_/g, ''));
  if (/^[-+]?0[0-7_]+$/.test(s)) return saltOctal(s);
  if (/^[-+]?0x[0-9a-fA-F_]+$/.test(s) || /^[-+]?0b[01_]+$/.test(s) || s.includes(':') || /^[-+]?\.(?:inf|Inf|INF)$|^\.(?:nan|NaN|NAN)$/.test(s)) {
    return GIVE_UP;
  }
  if (YAML_FLOAT.test(s)) return Number(s.replace(/_/g, ''));
  if (YAML_EXP.test(s)) return Number(s.replace(/_/g, ''));
  return s;
}

const SPECIAL_START = /^[[\]{}#&*!|>'"%@`,]|^[-?:](?:\s|$)/;

/** A scalar in value or key position; GIVE_UP when it is not one we handle. */
function scalar(raw: string): unknown {
  let s = raw;
  // `{}` and `[]`, the empty defaults map files are full of; other flow collections: the full parser
  if (s.startsWith('{}') || s.startsWith('[]')) return trailingOk(s.slice(2)) ? (s[0] === '{' ? {} : []) : GIVE_UP;
  if (s.startsWith("'")) {
    const end = s.indexOf("'", 1);
    if (end < 0) return GIVE_UP;
    let v = s.slice(1, end);
    let rest = s.slice(end + 1);
    while (rest.startsWith("'")) {
      const next = rest.indexOf("'", 1);
      if (next < 0) return GIVE_UP;
      v += "'" + rest.slice(1, next);
      rest = rest.slice(next + 1);
    }
    return trailingOk(rest) ? v : GIVE_UP;
  }
  if (s.startsWith('"')) {
    const m = /^"((?:[^"\\]|\\["\\/nt])*)"(.*)$/.exec(s);
    if (!m || !trailingOk(m[2])) return GIVE_UP;
    return JSON.parse('"' + m[1] + '"');
  }
  if (SPECIAL_START.test(s)) return GIVE_UP;
  const hash = s.indexOf(' #');
  if (hash >= 0) s = s.slice(0, hash);
  s = s.trimEnd();
  if (s.includes(': ') || s.endsWith(':') || s.includes('\t')) return GIVE_UP;
  return plain(s);
}

function trailingOk(rest: string): boolean {
  const r = rest.trim();
  return r === '' || (r.startsWith('#') && /^\s/.test(rest));
}

interface Line {
  indent: number;
  text: string;
  no: number;
}

/** Splits `key: rest`; undefined when the line is not a simple mapping entry. */
function splitKey(text: string): { key: string; rest: string; keyLen: number } | undefined {
  let key: string;
  let after: string;
  if (text.startsWith('"') || text.startsWith("'")) {
    const q = text[0];
    const end = text.indexOf(q, 1);
    if (end < 0 || text.slice(1, end).includes('\\')) return undefined;
    key = text.slice(1, end);
    if (q === "'" && text[end + 1] === "'") return undefined;
    after = text.slice(end + 1);
    if (!after.startsWith(':') || (after.length > 1 && after[1] !== ' ')) return undefined;
    return { key, rest: after.slice(1).trim(), keyLen: end + 1 };
  }
  // `key: rest` or `key:`, the key free of `#`; a scan, not a backtracking regex (every line of
  // a large tree comes here)
  if (!KEY_START.test(text) || LINE_BREAKS.test(text)) return undefined;
  for (let i = text[0] === '-' ? 2 : 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 35 /* # */) return undefined;
    if (c !== 58 /* : */ || (i + 1 < text.length && text.charCodeAt(i + 1) !== 32)) continue;
    key = text.slice(0, i).trimEnd();
    if (typeof plain(key) !== 'string') return undefined;
    return { key, rest: text.slice(i + 1).trim(), keyLen: i };
  }
  return undefined;
}

const KEY_START = /^(?:[^#\s'"[\]{}&*!|>%@`,?:-]|-[^\s#'"[\]{}&*!|>%@`,])/;
const LINE_BREAKS = /[\u2028\u2029\u0085]/;

class Reader {
  i = 0;
  readonly lines: Line[];
  readonly positions: FastPositions;
  constructor(lines: Line[], positions: FastPositions) {
    this.lines = lines;
    this.positions = positions;
  }

  /** A block node whose lines are indented exactly `indent`. */
  node(indent: number): unknown {
    const first = this.lines[this.i];
    if (first.text.startsWith('- ') || first.text === '-') return this.seq(indent);
    return this.map(indent);
  }

  map(indent: number): unknown {
    const out: Record<string, unknown> = {};
    const pos = new Map<string, FastPos>();
    this.positions.set(out, pos);
    while (this.i < this.lines.length) {
      const line = this.lines[this.i];
      if (line.indent < indent) break;
      if (line.indent > indent) return GIVE_UP;
      const kv = splitKey(line.text);
      if (!kv || Object.hasOwn(out, kv.key) || kv.key === '__proto__' || kv.key === '<<') return GIVE_UP;
      pos.set(kv.key, { line: line.no, column: line.indent + 1 });
      this.i++;
      const v = this.value(kv.rest, indent, true);
      if (v === GIVE_UP) return GIVE_UP;
      setKey(out, kv.key, v);
    }
    return out;
  }

  seq(indent: number): unknown {
    const out: unknown[] = [];
    while (this.i < this.lines.length) {
      const line = this.lines[this.i];
      if (line.indent < indent) break;
      if (line.indent > indent || !(line.text.startsWith('- ') || line.text === '-')) return GIVE_UP;
      const rest = line.text === '-' ? '' : line.text.slice(2);
      const pad = rest.length - rest.trimStart().length;
      const item = rest.trimStart();
      if (item.startsWith('- ') || item === '-') return GIVE_UP;
      const kv = item === '' ? undefined : splitKey(item);
      if (kv) {
        // `- key: value` starts a map indented at the key's column.
        const inner = indent + 2 + pad;
        this.lines[this.i] = { indent: inner, text: item, no: line.no };
        const v = this.map(inner);
        if (v === GIVE_UP) return GIVE_UP;
        out.push(v);
      } else {
        this.i++;
        const v = this.value(item, indent, false);
        if (v === GIVE_UP) return GIVE_UP;
        out.push(v);
      }
    }
    return out;
  }

  /** The value after `key:` or `-`: inline scalar, or a nested block below. */
  value(rest: string, indent: number, inMap: boolean): unknown {
    const next = this.lines[this.i];
    if (rest === '' || rest.startsWith('#')) {
      if (!next) return null;
      if (next.indent > indent) return this.node(next.indent);
      // A map's sequence value may sit at the key's own indent (`key:\n- a`).
      if (inMap && next.indent === indent && (next.text.startsWith('- ') || next.text === '-')) return this.seq(indent);
      return null;
    }
    if (next && next.indent > indent) return GIVE_UP;
    if ((rest[0] === '{' || rest[0] === '[') && rest.length > 2) {
      const line = this.lines[this.i - 1];
      return flowValue(rest, line.no, line.indent + line.text.length - rest.length, this.positions);
    }
    return scalar(rest);
  }
}

/**
 * A flow collection on one line (`{{ x | json }}` and `| yaml` put them in SLS files): maps and
 * lists of quoted or plain scalars, string keys only. Anything else gives up.
 */
function flowValue(text: string, lineNo: number, column0: number, positions: FastPositions): unknown {
  let i = 0;
  const space = () => {
    while (text.charCodeAt(i) === 32) i++;
  };
  const quoted = (): unknown => {
    const rest = text.slice(i);
    const m = rest[0] === '"' ? /^"((?:[^"\\]|\\["\\/nt])*)"/.exec(rest) : /^'((?:[^']|'')*)'/.exec(rest);
    if (!m) return GIVE_UP;
    i += m[0].length;
    return rest[0] === '"' ? JSON.parse(`"${m[1]}"`) : m[1].replace(/''/g, "'");
  };
  const plainScalar = (): unknown => {
    const start = i;
    while (i < text.length) {
      const c = text[i];
      if (c === ',' || c === '[' || c === ']' || c === '{' || c === '}' || c === '#') break;
      if (c === ':' && (text[i + 1] === ' ' || text[i + 1] === ',' || text[i + 1] === '}' || text[i + 1] === ']')) break;
      i++;
    }
    const raw = text.slice(start, i).trimEnd();
    if (raw === '' || text[i] === '#' || SPECIAL_START.test(raw)) return GIVE_UP;
    return plain(raw);
  };
  const node = (depth: number): unknown => {
    space();
    const c = text[i];
    if (c === '{' || c === '[') return depth > 64 ? GIVE_UP : collection(depth + 1);
    return c === '"' || c === "'" ? quoted() : plainScalar();
  };
  const collection = (depth: number): unknown => {
    const isMap = text[i] === '{';
    const close = isMap ? '}' : ']';
    i++;
    const list: unknown[] = [];
    const map: Record<string, unknown> = {};
    const pos = new Map<string, FastPos>();
    if (isMap) positions.set(map, pos);
    for (;;) {
      space();
      if (text[i] === close) {
        i++;
        return isMap ? map : list;
      }
      if (isMap) {
        const at = i;
        const key = text[i] === '"' || text[i] === "'" ? quoted() : plainScalar();
        if (typeof key !== 'string' || Object.hasOwn(map, key) || key === '__proto__' || key === '<<' || text[i] !== ':') return GIVE_UP;
        i++;
        pos.set(key, { line: lineNo, column: column0 + at + 1 });
        space();
        const v = text[i] === ',' || text[i] === '}' ? null : node(depth);
        if (v === GIVE_UP) return GIVE_UP;
        setKey(map, key, v);
      } else {
        const v = node(depth);
        // `[a: b]` is a map inside the list
        if (v === GIVE_UP || text[i] === ':') return GIVE_UP;
        list.push(v);
      }
      space();
      if (text[i] === ',') i++;
      else if (text[i] !== close) return GIVE_UP;
    }
  };
  const value = collection(0);
  if (value === GIVE_UP || !trailingOk(text.slice(i))) return GIVE_UP;
  return value;
}

/** Parses `text` when it is in the simple subset; undefined means "use the full parser". */
export function fastYaml(text: string): FastResult | undefined {
  if (text.includes('\t') || text.includes('\r')) return undefined;
  const lines: Line[] = [];
  const raw = text.split('\n');
  for (let n = 0; n < raw.length; n++) {
    const l = raw[n];
    const body = l.trimStart();
    if (body === '' || body.startsWith('#')) continue;
    // a document start before any content (map files open with it); any other marker: the full parser
    if (lines.length === 0 && l === body && /^---(?:\s+#.*)?\s*$/.test(body)) continue;
    // a document end with nothing but comments after it
    if (l === body && /^\.\.\.(?:\s+#.*)?\s*$/.test(body)) {
      if (raw.slice(n + 1).every((r) => r.trim() === '' || r.trimStart().startsWith('#'))) break;
      return undefined;
    }
    if (body.startsWith('---') || body.startsWith('...') || body.startsWith('%')) return undefined;
    lines.push({ indent: l.length - body.length, text: body.trimEnd(), no: n + 1 });
  }
  const positions: FastPositions = new WeakMap();
  if (lines.length === 0) return { value: null, positions };
  const reader = new Reader(lines, positions);
  const first = lines[0].indent;
  const value = reader.node(first);
  if (value === GIVE_UP || reader.i < lines.length) return undefined;
  return { value, positions };
}
