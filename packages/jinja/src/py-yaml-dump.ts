/**
 * YAML text laid out the way Salt's safe_dump (PyYAML with libyaml's emitter) lays it out (what Salt's `yaml` filter prints):
 * the same choice between plain, single- and double-quoted scalars, flow collections wrapped
 * past 80 columns with their continuation indented, block sequences not indented under a key.
 * A template that embeds `{{ x | yaml }}` in an SLS then reads back the same data as in Salt.
 * Mapping keys are sorted, as PyYAML does for plain dicts.
 */
import { isDict, isStringLike } from './python.js';
import { analyze, BREAKS, resolvesImplicitly } from './py-yaml-scalar.js';

const BEST_WIDTH = 80;
const BEST_INDENT = 2;

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
