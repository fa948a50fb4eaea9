/**
 * YAML text laid out the way Salt's safe_dump (PyYAML with libyaml's emitter) lays it out (what Salt's `yaml` filter prints):
 * the same choice between plain, single- and double-quoted scalars, flow collections wrapped
 * past 80 columns with their continuation indented, block sequences not indented under a key.
 * A template that embeds `{{ x | yaml }}` in an SLS then reads back the same data as in Salt.
 * Mapping keys are sorted, as PyYAML does for plain dicts.
 */
import { isDict, isStringLike } from './python.js';

const BEST_WIDTH = 80;
const BEST_INDENT = 2;
const BREAKS = '\n\x85\u2028\u2029';
const SPACES = '\0 \t\r\n\x85\u2028\u2029';

/** PyYAML's implicit resolvers (YAML 1.1): a plain scalar matching one is not a string. */
export const IMPLICIT = [
  /^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$/,
  /^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$/,
  /^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$/,
  /^(?:<<)$/,
  /^(?:~|null|Null|NULL|)$/,
  /^(?:[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]|[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?(?:[Tt]|[ \t]+)[0-9][0-9]?:[0-9][0-9]:[0-9][0-9](?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?)$/,
  /^(?:=)$/,
];

const [BOOL, FLOAT, INT, , NULL, TIMESTAMP] = IMPLICIT as [RegExp, RegExp, RegExp, RegExp, RegExp, RegExp, RegExp];

/**
 * IMPLICIT.some(re => re.test(text)), testing only the patterns the first character and the
 * length leave possible: most scalars a template dumps are words, which none can match past 5
 * characters (yes/no/on/off/true/false, null), and each regex test costs (a first one compiles).
 */
export function resolvesImplicitly(text: string): boolean {
  if (text === '') return true;
  const c = text.charCodeAt(0);
  // digits, + - . : the numbers and timestamps
  if ((c >= 48 && c <= 57) || c === 43 || c === 45 || c === 46) return FLOAT.test(text) || INT.test(text) || TIMESTAMP.test(text);
  if (text.length > 5) return false;
  if (text === '<<' || text === '~' || text === '=') return true;
  return BOOL.test(text) || NULL.test(text);
}

interface Analysis {
  empty: boolean;
  multiline: boolean;
  flowPlain: boolean;
  blockPlain: boolean;
  singleQuoted: boolean;
}

function isPrintable(ch: string, allowUnicode: boolean): boolean {
  if (ch === '\n' || (ch >= '\x20' && ch <= '\x7e')) return true;
  return allowUnicode && (ch === '\x85' || (ch >= '\xa0' && ch <= '\ud7ff') || (ch >= '\ue000' && ch <= '\ufffd') || ch.length === 2) && ch !== '\ufeff';
}

const EMPTY: Analysis = { empty: true, multiline: false, flowPlain: false, blockPlain: true, singleQuoted: true };

function analyze(s: string, allowUnicode = true): Analysis {
  if (s === '') return EMPTY;
  if (isAsciiWord(s)) return analyzeAscii(s);
  return isAscii(s) ? analyzeAsciiText(s) : analyzeChars(s, allowUnicode);
}

// a regex, not a loop: long texts (file contents, comments) are scanned natively
const ASCII = /^[\x00-\x7f]*$/;
const isAscii = (s: string): boolean => ASCII.test(s);

// analyzeChars' character classes over ASCII codes: 1 flow/block indicator first, 2 flow
// indicator after the first, 4 space (SPACES), 8 printable
const ASCII_CLASS = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const ch = String.fromCharCode(c);
  ASCII_CLASS[c] =
    ('#,[]{}&*!|>\'"%@`'.includes(ch) ? 1 : 0) | (',?[]{}'.includes(ch) ? 2 : 0) | (SPACES.includes(ch) ? 4 : 0) | (isPrintable(ch, false) ? 8 : 0);
}

/** analyzeChars for an ASCII string, by character code: the same flags without a string per character. */
export function analyzeAsciiText(s: string): Analysis {
  const n = s.length;
  let blockInd = s.startsWith('---') || s.startsWith('...');
  let flowInd = blockInd;
  let lineBreaks = false;
  let special = false;
  let edgeSpace = false;
  let breakSpace = false;
  let spaceBreak = false;
  let precededByWs = true;
  let followedByWs = n === 1 || (ASCII_CLASS[s.charCodeAt(1)]! & 4) !== 0;
  let prevSpace = false;
  let prevBreak = false;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    const k = ASCII_CLASS[c]!;
    if (i === 0) {
      if (k & 1) flowInd = blockInd = true;
      if (c === 0x3f || c === 0x3a) {
        flowInd = true;
        if (followedByWs) blockInd = true;
      }
      if (c === 0x2d && followedByWs) flowInd = blockInd = true;
    } else {
      if (k & 2) flowInd = true;
      if (c === 0x3a) {
        flowInd = true;
        if (followedByWs) blockInd = true;
      }
      if (c === 0x23 && precededByWs) flowInd = blockInd = true;
    }
    if (!(k & 8)) special = true;
    if (c === 0x20) {
      if (i === 0 || i === n - 1) edgeSpace = true;
      if (prevBreak) breakSpace = true;
      prevSpace = true;
      prevBreak = false;
    } else if (c === 0x0a) {
      lineBreaks = true;
      if (i === 0 || i === n - 1) edgeSpace = true;
      if (prevSpace) spaceBreak = true;
      prevSpace = false;
      prevBreak = true;
    } else {
      prevSpace = prevBreak = false;
    }
    precededByWs = (k & 4) !== 0;
    followedByWs = i + 2 >= n || (ASCII_CLASS[s.charCodeAt(i + 2)]! & 4) !== 0;
  }
  const plain = !(edgeSpace || breakSpace || spaceBreak || special || lineBreaks);
  return {
    empty: false,
    multiline: lineBreaks,
    flowPlain: plain && !flowInd,
    blockPlain: plain && !blockInd,
    singleQuoted: !(breakSpace || spaceBreak || special),
  };
}

/** Printable ASCII without a space or a line break: the most of keys and values a template dumps. */
const ASCII_WORD = /^[\x21-\x7e]*$/;
const isAsciiWord = (s: string): boolean => ASCII_WORD.test(s);

/** analyzeChars for an isAsciiWord string, without its per-character allocations: no space, break or special character. */
function analyzeAscii(s: string): Analysis {
  let blockInd = s.startsWith('---') || s.startsWith('...');
  let flowInd = blockInd;
  const c0 = s[0]!;
  const n = s.length;
  if ('#,[]{}&*!|>\'"%@`'.includes(c0)) flowInd = blockInd = true;
  if (c0 === '?' || c0 === ':') {
    flowInd = true;
    if (n === 1) blockInd = true;
  }
  if (c0 === '-' && n === 1) flowInd = blockInd = true;
  for (let i = 1; i < n; i++) {
    const c = s.charCodeAt(i);
    // , ? [ ] { }
    if (c === 0x2c || c === 0x3f || c === 0x5b || c === 0x5d || c === 0x7b || c === 0x7d) flowInd = true;
    else if (c === 0x3a) {
      flowInd = true;
      if (i === n - 1) blockInd = true;
    }
    // '#' is an indicator only after whitespace, and this string has none.
  }
  return { empty: false, multiline: false, flowPlain: !flowInd, blockPlain: !blockInd, singleQuoted: true };
}

const SURROGATE = /[\ud800-\udfff]/;

export function analyzeChars(s: string, allowUnicode: boolean): Analysis {
  let blockInd = false;
  let flowInd = false;
  let lineBreaks = false;
  let special = false;
  let leadingSpace = false;
  let leadingBreak = false;
  let trailingSpace = false;
  let trailingBreak = false;
  let breakSpace = false;
  let spaceBreak = false;
  if (s.startsWith('---') || s.startsWith('...')) blockInd = flowInd = true;
  // by code point as PyYAML reads; a text without surrogates is its own list of them (no array per scalar)
  const chars: ArrayLike<string> = SURROGATE.test(s) ? [...s] : s;
  let precededByWs = true;
  let followedByWs = chars.length === 1 || SPACES.includes(chars[1]);
  let prevSpace = false;
  let prevBreak = false;
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i];
    if (i === 0) {
      if ('#,[]{}&*!|>\'"%@`'.includes(ch)) flowInd = blockInd = true;
      if ('?:'.includes(ch)) {
        flowInd = true;
        if (followedByWs) blockInd = true;
      }
      if (ch === '-' && followedByWs) flowInd = blockInd = true;
    } else {
      if (',?[]{}'.includes(ch)) flowInd = true;
      if (ch === ':') {
        flowInd = true;
        if (followedByWs) blockInd = true;
      }
      if (ch === '#' && precededByWs) flowInd = blockInd = true;
    }
    if (BREAKS.includes(ch)) lineBreaks = true;
    if (!isPrintable(ch, allowUnicode)) special = true;
    if (ch === ' ') {
      if (i === 0) leadingSpace = true;
      if (i === chars.length - 1) trailingSpace = true;
      if (prevBreak) breakSpace = true;
      prevSpace = true;
      prevBreak = false;
    } else if (BREAKS.includes(ch)) {
      if (i === 0) leadingBreak = true;
      if (i === chars.length - 1) trailingBreak = true;
      if (prevSpace) spaceBreak = true;
      prevSpace = false;
      prevBreak = true;
    } else {
      prevSpace = prevBreak = false;
    }
    precededByWs = SPACES.includes(ch);
    followedByWs = i + 2 >= chars.length || SPACES.includes(chars[i + 2]);
  }
  let flowPlain = true;
  let blockPlain = true;
  let singleQuoted = true;
  if (leadingSpace || leadingBreak || trailingSpace || trailingBreak) flowPlain = blockPlain = false;
  if (breakSpace) flowPlain = blockPlain = singleQuoted = false;
  if (spaceBreak || special) flowPlain = blockPlain = singleQuoted = false;
  if (lineBreaks) flowPlain = blockPlain = false;
  if (flowInd) flowPlain = false;
  if (blockInd) blockPlain = false;
  return { empty: false, multiline: lineBreaks, flowPlain, blockPlain, singleQuoted };
}

const ESCAPES: Record<string, string> = {
  '\0': '0',
  '\x07': 'a',
  '\x08': 'b',
  '\x09': 't',
  '\x0a': 'n',
  '\x0b': 'v',
  '\x0c': 'f',
  '\x0d': 'r',
  '\x1b': 'e',
  '"': '"',
  '\\': '\\',
  '\x85': 'N',
  '\xa0': '_',
  '\u2028': 'L',
  '\u2029': 'P',
};

function floatText(n: number): string {
  if (Number.isNaN(n)) return '.nan';
  if (n === Infinity) return '.inf';
  if (n === -Infinity) return '-.inf';
  let v = String(n).toLowerCase();
  if (!v.includes('.') && v.includes('e')) v = v.replace('e', '.0e');
  return v;
}

const QUOTED_SPECIAL = /[ \n\x85\u2028\u2029']/;
const QUOTED_BREAK = /[\n\x85\u2028\u2029']/;
const QUOTED_SPECIAL_G = /[ \n\x85\u2028\u2029']/g;

type Flow = boolean | null;

class Emitter {
  out = '';
  column = 0;
  indent: number | null = null;
  indents: Array<number | null> = [];
  whitespace = true;
  indention = true;
  flowLevel = 0;
  rootContext = false;
  simpleKey = false;
  mappingContext = false;

  readonly flowStyle: Flow;
  /** PyYAML's allow_unicode: without it, characters past ASCII are written as escapes. */
  readonly allowUnicode: boolean;
  constructor(flowStyle: Flow, allowUnicode = true) {
    this.flowStyle = flowStyle;
    this.allowUnicode = allowUnicode;
  }

  write(data: string): void {
    this.column += data.length;
    this.out += data;
  }

  indicator(ind: string, needWs: boolean, whitespace = false, indention = false): void {
    const data = this.whitespace || !needWs ? ind : ' ' + ind;
    this.whitespace = whitespace;
    this.indention = this.indention && indention;
    this.write(data);
  }

  lineBreak(data = '\n'): void {
    this.whitespace = true;
    this.indention = true;
    this.out += data;
    this.column = 0;
  }

  writeIndent(): void {
    const indent = this.indent ?? 0;
    if (!this.indention || this.column > indent || (this.column === indent && !this.whitespace)) this.lineBreak();
    if (this.column < indent) {
      this.whitespace = true;
      this.write(' '.repeat(indent - this.column));
    }
  }

  increaseIndent(flow: boolean, indentless = false): void {
    this.indents.push(this.indent);
    if (this.indent === null) this.indent = flow ? BEST_INDENT : 0;
    else if (!indentless) this.indent += BEST_INDENT;
  }

  popIndent(): void {
    this.indent = this.indents.pop() ?? null;
  }

  node(v: unknown, ctx: { root?: boolean; mapping?: boolean; simpleKey?: boolean }): void {
    this.rootContext = !!ctx.root;
    this.mappingContext = !!ctx.mapping;
    this.simpleKey = !!ctx.simpleKey;
    if (Array.isArray(v)) {
      if (this.flowLevel || this.useFlow(v) || v.length === 0) this.flowSeq(v);
      else this.blockSeq(v);
    } else if (isDict(v)) {
      const keys = Object.keys(v).sort();
      if (this.flowLevel || this.useFlow(v) || keys.length === 0) this.flowMap(v, keys);
      else this.blockMap(v, keys);
    } else {
      this.increaseIndent(true);
      this.scalar(v);
      this.popIndent();
    }
  }

  /** default_flow_style: true, false, or (None) flow only for collections of scalars. */
  useFlow(v: unknown[] | Record<string, unknown>): boolean {
    if (this.flowStyle !== null) return this.flowStyle;
    const items = Array.isArray(v) ? v : Object.values(v);
    return items.every((x) => !Array.isArray(x) && !isDict(x));
  }

  flowSeq(v: unknown[]): void {
    this.indicator('[', true, true);
    this.flowLevel++;
    this.increaseIndent(true);
    v.forEach((item, i) => {
      if (i > 0) this.indicator(',', false);
      if (this.column > BEST_WIDTH) this.writeIndent();
      this.node(item, {});
    });
    this.popIndent();
    this.flowLevel--;
    this.indicator(']', false);
  }

  flowMap(v: Record<string, unknown>, keys: string[]): void {
    this.indicator('{', true, true);
    this.flowLevel++;
    this.increaseIndent(true);
    keys.forEach((k, i) => {
      if (i > 0) this.indicator(',', false);
      if (this.column > BEST_WIDTH) this.writeIndent();
      if (this.simpleKeyOk(k)) {
        this.node(k, { mapping: true, simpleKey: true });
        this.indicator(':', false);
      } else {
        this.indicator('?', true);
        this.node(k, { mapping: true });
        if (this.column > BEST_WIDTH) this.writeIndent();
        this.indicator(':', true);
      }
      this.node(v[k], { mapping: true });
    });
    this.popIndent();
    this.flowLevel--;
    this.indicator('}', false);
  }

  blockSeq(v: unknown[]): void {
    this.increaseIndent(false, this.mappingContext && !this.indention);
    for (const item of v) {
      this.writeIndent();
      this.indicator('-', true, false, true);
      this.node(item, {});
    }
    this.popIndent();
  }

  blockMap(v: Record<string, unknown>, keys: string[]): void {
    this.increaseIndent(false);
    for (const k of keys) {
      this.writeIndent();
      if (this.simpleKeyOk(k)) {
        this.node(k, { mapping: true, simpleKey: true });
        this.indicator(':', false);
      } else {
        this.indicator('?', true, false, true);
        this.node(k, { mapping: true });
        this.writeIndent();
        this.indicator(':', true, false, true);
      }
      this.node(v[k], { mapping: true });
    }
    this.popIndent();
  }

  /** libyaml's rule (Salt dumps with CSafeDumper): short and on one line; an empty key is simple. */
  simpleKeyOk(k: string): boolean {
    return k.length < 128 && !analyze(k).multiline;
  }

  scalar(v: unknown): void {
    let text: string;
    let implicit = true;
    if (v === null || v === undefined) text = 'null';
    else if (v === true || v === false) text = String(v);
    else if (typeof v === 'number') text = Number.isInteger(v) ? String(v) : floatText(v);
    else {
      text = isStringLike(v) ? String(v) : String(v);
      implicit = !resolvesImplicitly(text);
    }
    const a = analyze(text, this.allowUnicode);
    const split = !this.simpleKey;
    let style: string;
    if (implicit && !(this.simpleKey && (a.empty || a.multiline)) && ((this.flowLevel && a.flowPlain) || (!this.flowLevel && a.blockPlain))) style = '';
    else if (a.singleQuoted && !(this.simpleKey && a.multiline)) style = "'";
    else style = '"';
    if (style === '') this.plain(text, split);
    else if (style === "'") this.singleQuoted(text, split);
    else this.doubleQuoted(text, split);
  }

  plain(text: string, split: boolean): void {
    if (text === '') return;
    if (!this.whitespace) this.write(' ');
    this.whitespace = false;
    this.indention = false;
    // Only a space can split a plain scalar: without one it goes out whole.
    if (!text.includes(' ')) return this.write(text);
    let spaces = false;
    let start = 0;
    for (let end = 0; end <= text.length; end++) {
      const ch = end < text.length ? text[end] : undefined;
      if (spaces) {
        if (ch !== ' ') {
          if (start + 1 === end && this.column > BEST_WIDTH && split) {
            this.writeIndent();
            this.whitespace = false;
            this.indention = false;
          } else {
            this.write(text.slice(start, end));
          }
          start = end;
        }
      } else if (ch === undefined || ch === ' ') {
        this.write(text.slice(start, end));
        start = end;
      }
      if (ch !== undefined) spaces = ch === ' ';
    }
  }

  singleQuoted(text: string, split: boolean): void {
    this.indicator("'", true);
    // Without a space, a line break or a quote nothing splits or escapes: the text goes out whole;
    // so too with spaces when it cannot pass the width (no space finds the column past it).
    if (!QUOTED_SPECIAL.test(text) || (!QUOTED_BREAK.test(text) && (!split || this.column + text.length <= BEST_WIDTH))) {
      this.write(text);
      return this.indicator("'", false);
    }
    let spaces = false;
    let breaks = false;
    let start = 0;
    for (let end = 0; end <= text.length; end++) {
      // past a run of ordinary characters nothing happens: on to the next space, break or quote
      if (!spaces && !breaks) {
        QUOTED_SPECIAL_G.lastIndex = end;
        end = QUOTED_SPECIAL_G.exec(text)?.index ?? text.length;
      }
      const ch = end < text.length ? text[end] : undefined;
      if (spaces) {
        if (ch === undefined || ch !== ' ') {
          if (start + 1 === end && this.column > BEST_WIDTH && split && start !== 0 && end !== text.length) this.writeIndent();
          else this.write(text.slice(start, end));
          start = end;
        }
      } else if (breaks) {
        if (ch === undefined || !BREAKS.includes(ch)) {
          if (text[start] === '\n') this.lineBreak();
          for (let k = start; k < end; k++) this.lineBreak(text[k]);
          this.writeIndent();
          start = end;
        }
      } else if (ch === undefined || ' \n\x85\u2028\u2029'.includes(ch) || ch === "'") {
        if (start < end) {
          this.write(text.slice(start, end));
          start = end;
        }
      }
      if (ch === "'") {
        this.write("''");
        start = end + 1;
      }
      if (ch !== undefined) {
        spaces = ch === ' ';
        breaks = BREAKS.includes(ch);
      }
    }
    this.indicator("'", false);
  }

  doubleQuoted(text: string, split: boolean): void {
    this.indicator('"', true);
    let start = 0;
    for (let end = 0; end <= text.length; end++) {
      const ch = end < text.length ? text[end] : undefined;
      if (
        ch === undefined ||
        '"\\\x85\u2028\u2029\ufeff'.includes(ch) ||
        !((ch >= '\x20' && ch <= '\x7e') || (this.allowUnicode && ch >= '\xa0' && ch <= '\ufffd' && ch !== '\ufeff'))
      ) {
        if (start < end) {
          this.write(text.slice(start, end));
          start = end;
        }
        if (ch !== undefined) {
          const code = ch.charCodeAt(0);
          const esc =
            ESCAPES[ch] !== undefined
              ? '\\' + ESCAPES[ch]
              : code <= 0xff
                ? '\\x' + code.toString(16).toUpperCase().padStart(2, '0')
                : '\\u' + code.toString(16).toUpperCase().padStart(4, '0');
          this.write(esc);
          start = end + 1;
        }
      }
      if (end > 0 && end < text.length - 1 && (ch === ' ' || start >= end) && this.column + (end - start) > BEST_WIDTH && split) {
        const data = text.slice(start, end) + '\\';
        if (start < end) start = end;
        this.write(data);
        this.writeIndent();
        this.whitespace = false;
        this.indention = false;
        if (text[start] === ' ') this.write('\\');
      }
    }
    this.indicator('"', false);
  }
}

/**
 * `salt.utils.yaml.safe_dump(v, default_flow_style=flow).strip()` without a trailing `...`
 * (safe_dump allows unicode; `yaml.dump` without allow_unicode escapes it).
 */
export function pyYamlDump(v: unknown, flow: Flow = true, allowUnicode = true): string {
  const key = jsonKeyed(v, 0) ? `${flow}|${allowUnicode}|${JSON.stringify(v)}` : undefined;
  let text = key === undefined ? undefined : dumped.get(key);
  if (text !== undefined) return text;
  const e = new Emitter(flow, allowUnicode);
  e.node(v, { root: true });
  text = e.out.trim();
  if (key !== undefined && key.length <= DUMPED_MAX_KEY) {
    if (dumpedChars + key.length > DUMPED_MAX_CHARS) {
      dumped.clear();
      dumpedChars = 0;
    }
    dumped.set(key, text);
    dumpedChars += key.length;
  }
  return text;
}

/**
 * Dumps by value: formulas import the same map from every SLS and dump it for a debug log each
 * time (template-formula's libmatchers and _mapdata), so nine dumps in ten repeat one made
 * before. Keyed by the value's JSON, bounded by the size of the keys kept.
 */
const dumped = new Map<string, string>();
const DUMPED_MAX_CHARS = 4_000_000;
const DUMPED_MAX_KEY = 400_000;
let dumpedChars = 0;

/**
 * Whether JSON.stringify tells the value apart from every other as the dumper does: lists
 * without holes, plain dicts, strings, booleans, null and finite numbers only (JSON writes
 * `undefined`, NaN, a hole or a function as null or not at all, and a boxed or class object by
 * its fields). Shallow enough to check: a deeper value is dumped uncached.
 */
function jsonKeyed(v: unknown, depth: number): boolean {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return true;
  if (typeof v === 'number') return Number.isFinite(v);
  if (typeof v !== 'object' || depth > 64) return false;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) if (!(i in v) || !jsonKeyed(v[i], depth + 1)) return false;
    return true;
  }
  if (!isDict(v)) return false;
  for (const k of Object.keys(v)) if (!jsonKeyed(v[k], depth + 1)) return false;
  return true;
}
