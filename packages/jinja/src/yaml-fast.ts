/**
 * A fast path for the YAML most SLS files are made of: block maps and sequences of plain or
 * quoted scalars, flow collections (yaml-fast-flow.ts), literal and folded block scalars.
 * Anything else (anchors, tags, more-indented folded lines, tabs, duplicate keys, ...) returns
 * undefined and the caller uses the full `yaml` parser, so the result is the same either way —
 * only faster (the full parser reads about 100k lines a second, and is about 70 modules to load).
 */
import { setKey } from '@brine/core';
import { Anchors, hasIndexKey } from './yaml-fast-anchors.js';
import { FlowText, flowValue, POSITIONS_DEPTH } from './yaml-fast-flow.js';
import { declined, GIVE_UP, giveUp, plain, scalar, SPECIAL_START, trailingOk, type FastPositions, type KeyPositions } from './yaml-scalars.js';
import { copyParsed } from './parse-cache.js';

/**
 * Long flow collections by their line, parsed once per process: a formula writes the same map
 * (`apache: {{ apache | json }}`) into a dozen SLS files, each parsed anew. Only where no key
 * positions are kept and the collection ends on its line, so the line alone makes the value;
 * each use gets a copy (the compile changes what it loaded). Bounded by the text kept.
 */
const keptFlows = new Map<string, unknown>();
const KEPT_FLOW_MIN = 256;
const KEPT_FLOWS_MAX_CHARS = 4_000_000;
let keptFlowChars = 0;
const keptFlowStats = { kept: 0, hits: 0 };

/** How many long flows were kept, and how many reads found theirs kept (tests). */
export function flowCacheStats(): { kept: number; hits: number } {
  return { ...keptFlowStats };
}

function keepFlow(text: string, value: unknown): void {
  if (keptFlowChars + text.length > KEPT_FLOWS_MAX_CHARS) {
    keptFlows.clear();
    keptFlowChars = 0;
  }
  keptFlows.set(text, value);
  keptFlowChars += text.length;
  keptFlowStats.kept++;
}

export { declined, saltOctal, YAML_EXP, YAML_FALSE, YAML_FLOAT, YAML_INT, YAML_TRUE } from './yaml-scalars.js';

export type { FastPositions, KeyPositions } from './yaml-scalars.js';

export interface FastResult {
  value: unknown;
  positions: FastPositions;
}

interface Line {
  indent: number;
  text: string;
  no: number;
}

/**
 * The key and the value text of the line splitKey took last, read right after it answers true:
 * no object per line (every line of a tree is split).
 */
let splitName = '';
let splitRest = '';

/** The last line split and its answer: a map's first line is split twice, once to see that a map starts there (isEntry), once to read it. */
let lastText = '';
let lastOk = false;

/** Splits `key: rest` into splitName and splitRest; false when the line is not a simple mapping entry. */
function splitKey(text: string): boolean {
  if (text === lastText) return lastOk;
  lastText = text;
  return (lastOk = splitKeyOnce(text));
}

function splitKeyOnce(text: string): boolean {
  let key: string;
  let after: string;
  if (text.startsWith('"') || text.startsWith("'")) {
    const q = text[0];
    const end = text.indexOf(q, 1);
    // a backslash is an escape only between double quotes
    if (end < 0 || (q === '"' && text.slice(1, end).includes('\\'))) return false;
    key = text.slice(1, end);
    if (q === "'" && text[end + 1] === "'") return false;
    after = text.slice(end + 1);
    if (!after.startsWith(':') || (after.length > 1 && after[1] !== ' ')) return false;
    splitName = key;
    splitRest = after.slice(1).trim();
    return true;
  }
  // `key: rest` or `key:`, the key free of `#`; native searches, not a backtracking regex nor a
  // loop per character (every line of a large tree comes here, mostly run by the interpreter)
  if (!keyStart(text)) return false;
  const from = text.charCodeAt(0) === 45 /* - */ ? 2 : 1;
  let i = from - 1;
  do {
    i = text.indexOf(':', i + 1);
    if (i < 0) return false;
  } while (i + 1 < text.length && text.charCodeAt(i + 1) !== 32);
  const hash = text.indexOf('#', from);
  if (hash >= 0 && hash < i) return false;
  key = text.slice(0, spaceBefore(text, i));
  if (key.includes('\t')) return false;
  // an integer key (`386:` in a map of architectures) is its digits, as the full loader makes it
  const k = plain(key);
  if (typeof k !== 'string' && !(typeof k === 'number' && Number.isSafeInteger(k) && String(k) === key)) return false;
  splitName = key;
  splitRest = text.slice(spaceAfter(text, i + 1)).trimEnd();
  return true;
}

// The white space trim() would take around a key and its value: fastYaml declined every other
// kind (ODD_SPACE) before a line gets here, so spaces and tabs. One string made, not two.
function spaceBefore(text: string, end: number): number {
  let c = text.charCodeAt(end - 1);
  while (c === 32 || c === 9) c = text.charCodeAt(--end - 1);
  return end;
}

function spaceAfter(text: string, start: number): number {
  let c = text.charCodeAt(start);
  while (c === 32 || c === 9) c = text.charCodeAt(++start);
  return start;
}

/** A line that starts a block entry: `- item` or `key: value`. */
function isEntry(text: string): boolean {
  return text.startsWith('- ') || text === '-' || splitKey(text);
}

const KEY_START = /^(?:[^#\s'"[\]{}&*!|>%@`,?:-]|-[^\s#'"[\]{}&*!|>%@`,])/;
/** ASCII characters KEY_START refuses first (NOT_FIRST) and after a first `-` (NOT_AFTER_DASH). */
const NOT_FIRST = asciiSet('#\t\n\v\f\r \'"[]{}&*!|>%@`,?:-');
const NOT_AFTER_DASH = asciiSet('\t\n\v\f\r #\'"[]{}&*!|>%@`,');

function asciiSet(chars: string): Uint8Array {
  const set = new Uint8Array(128);
  for (let i = 0; i < chars.length; i++) set[chars.charCodeAt(i)] = 1;
  return set;
}

/** KEY_START.test(text), looked up for ASCII (every key line of a tree comes here); the regex for the rest. */
function keyStart(text: string): boolean {
  const c = text.charCodeAt(0);
  if (!(c < 128)) return KEY_START.test(text);
  if (c !== 45) return NOT_FIRST[c] === 0;
  const d = text.charCodeAt(1);
  return d < 128 ? NOT_AFTER_DASH[d] === 0 : KEY_START.test(text);
}
/** Line breaks YAML 1.1 knows beyond \\n, white space trimStart() and trimEnd() take that YAML does not, control characters. */
const ODD_SPACE = /[\u2028\u2029\u0085\u00a0\ufeff\u1680\u2000-\u200a\u202f\u205f\u3000\x00-\x08\v\f\x0e-\x1f\x7f]/;

class Reader {
  i = 0;
  readonly lines: Line[];
  readonly positions: FastPositions;
  /** How many collections hold the node being read (the document's root is at 0). */
  depth = 0;
  /** A flow collection continued at or left of its block's indentation (see flow()). */
  reindented = false;
  /** Key columns on flow continuation lines (positions array, index), and their column once such lines are moved. */
  readonly moved: Array<[KeyPositions, number, number]> = [];
  /** The text's lines as written: block scalars and flows read them, comments and blank lines included (split when first read: most files have neither). */
  #raw: string[] | undefined;
  readonly #text: string;
  /** Anchored values, for the aliases and merge keys after them. */
  readonly anchors = new Anchors();
  /** The line numbers block scalars took, first and last. */
  readonly blocks: Array<[number, number]> = [];
  /** The deepest maps whose key positions are kept (POSITIONS_DEPTH, or 0: a file's IDs only). */
  readonly keepDepth: number;
  constructor(lines: Line[], positions: FastPositions, text: string, keepDepth: number) {
    this.lines = lines;
    this.positions = positions;
    this.#text = text;
    this.keepDepth = keepDepth;
  }

  get raw(): string[] {
    return (this.#raw ??= this.#text.split('\n'));
  }

  /** A block node whose lines are indented exactly `indent`. */
  node(indent: number): unknown {
    const first = this.lines[this.i];
    if (first.text.startsWith('- ') || first.text === '-') return this.seq(indent);
    return this.map(indent);
  }

  map(indent: number): unknown {
    const out: Record<string, unknown> = {};
    const keep = this.depth <= this.keepDepth;
    // made with its first key (a block map has one): an array literal is the size it holds
    let pos: KeyPositions | undefined;
    let merged: Set<string> | undefined;
    // no key to look for in a map still empty (most maps of a state file hold one key)
    let empty = true;
    this.depth++;
    while (this.i < this.lines.length) {
      const line = this.lines[this.i];
      if (line.indent < indent) break;
      if (line.indent > indent) return giveUp('map: more-indented line (multi-line plain scalar?)', line.no);
      if (!splitKey(line.text)) return giveUp('map: not a simple key line', line.no);
      const key = splitName;
      const rest = splitRest;
      if (key === '<<') {
        this.i++;
        if (merged || !this.mergeKey(out, rest, indent, (merged = new Set()))) return GIVE_UP;
        empty = false;
        continue;
      }
      // a key a merge set may be set again, once
      if ((!empty && Object.hasOwn(out, key) && !merged?.delete(key)) || key === '__proto__') return giveUp('map: duplicate or __proto__ key', line.no);
      if (pos) pos.push(key, line.no, line.indent + 1);
      else if (keep) this.positions.set(out, (pos = [key, line.no, line.indent + 1]));
      this.i++;
      const v = this.value(rest, indent, true);
      if (v === GIVE_UP) return GIVE_UP;
      setKey(out, key, v);
      empty = false;
    }
    this.depth--;
    return out;
  }

  seq(indent: number): unknown {
    // made with its first item, as a literal: a list of one (most requisite lists) holds one
    // slot, where a first push makes room for 17
    let out: unknown[] | undefined;
    this.depth++;
    while (this.i < this.lines.length) {
      const line = this.lines[this.i];
      if (line.indent < indent) break;
      if (line.indent > indent || !(line.text.startsWith('- ') || line.text === '-')) return giveUp('seq: more-indented or not an item', line.no);
      const rest = line.text === '-' ? '' : line.text.slice(2);
      const item = rest.trimStart();
      const pad = rest.length - item.length;
      if (item.startsWith('- ') || item === '-' || (pad > 0 && rest.slice(0, pad).includes('\t'))) return giveUp('seq: nested item on one line', line.no);
      let v: unknown;
      if (item !== '' && splitKey(item)) {
        // `- key: value` starts a map indented at the key's column: the line is read again as
        // its first, from the key on (changed in place: nothing else holds the line)
        line.indent = indent + 2 + pad;
        line.text = item;
        v = this.map(line.indent);
      } else {
        this.i++;
        v = this.value(item, indent, false);
      }
      if (v === GIVE_UP) return GIVE_UP;
      if (out) out.push(v);
      else out = [v];
    }
    this.depth--;
    return out ?? [];
  }

  /** The value after `key:` or `-`: inline scalar, or a nested block below. */
  value(rest: string, indent: number, inMap: boolean): unknown {
    const next = this.lines[this.i];
    if (rest === '' || rest.startsWith('#')) {
      if (!next) return null;
      if (next.indent > indent) return isEntry(next.text) ? this.node(next.indent) : this.lineScalar(indent);
      // A map's sequence value may sit at the key's own indent (`key:\n- a`).
      if (inMap && next.indent === indent && (next.text.startsWith('- ') || next.text === '-')) return this.seq(indent);
      return null;
    }
    if ((rest[0] === '{' || rest[0] === '[') && rest.length > 2) return this.flow(rest, indent);
    if (/^[|>][-+]?$/.test(rest)) return this.block(rest[0]!, rest[1] ?? '', indent);
    if (rest[0] === '&') return this.anchored(rest, indent, inMap);
    if (rest[0] === '*') return next && next.indent > indent ? giveUp('alias with lines below', next.no) : this.alias(rest);
    const below = next !== undefined && next.indent > indent;
    if (rest[0] === '"' || rest[0] === "'") {
      const v = below ? GIVE_UP : scalar(rest);
      return v === GIVE_UP ? this.quotedLines(rest) : v;
    }
    return below ? this.plainLines(rest, indent) : scalar(rest);
  }

  /** `&name value`: the value, kept for the aliases below. */
  anchored(rest: string, indent: number, inMap: boolean): unknown {
    const m = /^&([A-Za-z0-9_-]+)(?: +|$)/.exec(rest);
    const after = m ? rest.slice(m[0].length) : '';
    if (!m || after[0] === '&' || after[0] === '*' || after[0] === '!') return giveUp('anchor: its name, a second anchor, an alias or a tag');
    const turn = this.anchors.begin(m[1]);
    const v = this.value(after, indent, inMap);
    if (v === GIVE_UP) return GIVE_UP;
    this.anchors.set(m[1], v, turn);
    return v;
  }

  /** `*name`: the value anchored before it (the same object). */
  alias(rest: string): unknown {
    const m = /^\*([A-Za-z0-9_-]+)(?: +#.*)?$/.exec(rest);
    if (!m) return giveUp('alias: its name');
    const v = this.anchors.alias(m[1]);
    if (v !== null && typeof v === 'object') {
      // the full loader's positions do not look through an alias
      if (this.depth <= POSITIONS_DEPTH + 1) return giveUp('alias of a collection where positions are kept');
      this.anchors.aliased.add(v);
    }
    return v;
  }

  /** `<<: *name` in a map (the line just read): that map's keys `out` has not yet. */
  mergeKey(out: Record<string, unknown>, rest: string, indent: number, merged: Set<string>): boolean {
    const m = /^\*([A-Za-z0-9_-]+)(?: +#.*)?$/.exec(rest);
    const next = this.lines[this.i];
    if (!m || (next && next.indent > indent) || this.depth <= POSITIONS_DEPTH + 1) {
      giveUp('merge key: not one alias, or where positions are kept');
      return false;
    }
    return this.anchors.merge(out, m[1], merged);
  }

  /** `rest` (the end of `line`'s trimmed text) with the white space after it: an escape may take it (`"a\\ `). */
  untrimmed(line: Line, rest: string): string {
    return this.raw[line.no - 1].slice(line.indent + line.text.length - rest.length);
  }

  /** A quoted scalar with escapes or going on over the lines below: read as in a flow collection, which folds them the same way. */
  quotedLines(rest: string): unknown {
    const first = this.lines[this.i - 1];
    let no = first.no;
    // lines at or left of the parent's indentation too: PyYAML reads them, and the full loader
    // after moving them right (yaml-flow.ts), which changes no key's place
    const more = (): string | undefined => (no < this.raw.length ? this.raw[no++] : undefined);
    const ft = new FlowText(this.untrimmed(first, rest), more, [0]);
    const v = ft.quoted(true);
    if (v === GIVE_UP) return GIVE_UP;
    if (!trailingOk(ft.text.slice(ft.i))) return giveUp('quoted scalar: text after it', first.no);
    this.blocks.push([first.no + 1, no]);
    while (this.i < this.lines.length && this.lines[this.i].no <= no) this.i++;
    return v;
  }

  /** A plain scalar going on over the lines below (indented deeper than `indent`): lines fold into spaces, blank lines into line breaks. */
  plainLines(first: string, indent: number): unknown {
    const no = this.lines[this.i - 1].no;
    if (!plainLine(first)) return giveUp('multi-line plain scalar: first line', no);
    let text = first;
    let blanks = 0;
    let last = no;
    for (let n = no; n < this.raw.length; n++) {
      const l = this.raw[n];
      const body = l.trim();
      if (body === '') {
        blanks++;
        continue;
      }
      if (l.length - l.trimStart().length <= indent) break;
      if (!plainLine(body) || body.startsWith('---') || body.startsWith('...')) return giveUp('multi-line plain scalar: a line in it', n + 1);
      text += blanks === 0 ? ' ' + body : '\n'.repeat(blanks) + body;
      blanks = 0;
      last = n + 1;
    }
    while (this.i < this.lines.length && this.lines[this.i].no <= last) this.i++;
    return plain(text);
  }

  /**
   * A flow collection starting at `rest` (the end of the line just read) and continued on the
   * lines below, at any indentation (PyYAML's dump wraps them at 80 columns; flow context ignores
   * indentation). Only lines that follow one another: a blank or comment line inside one is left
   * to the full parser.
   */
  flow(rest: string, indent: number): unknown {
    const first = this.lines[this.i - 1];
    const bracket = first.indent + first.text.length - rest.length;
    // each line's offset in the joined text (its column 0; the first line's is where `rest` is)
    const starts = [-bracket];
    const indents = [first.indent];
    // the lines as written: blank lines and `-----END` lines belong to the quoted scalars they are in
    let no = first.no;
    const more = (): string | undefined => {
      if (no >= this.raw.length) return undefined;
      const line = this.raw[no++];
      const ind = line.length - line.trimStart().length;
      // the full loader parses this only after moving such lines right (yaml-flow.ts)
      if (ind < line.length && ind <= indent) this.reindented = true;
      indents.push(ind);
      return line;
    };
    const at = (into: KeyPositions, key: string, offset: number): void => {
      let k = starts.length - 1;
      while (k > 0 && starts[k] > offset) k--;
      const column = offset - starts[k] + 1;
      into.push(key, first.no + k, column);
      // where that loader's moved line puts the key: right of the opening bracket
      if (k > 0 && indents[k] <= bracket) this.moved.push([into, into.length - 1, column - indents[k] + bracket + 1]);
    };
    const text = this.untrimmed(first, rest);
    // where no positions are kept, a long flow read on its line alone is the same value each time
    const keyed = this.depth > this.keepDepth && text.length >= KEPT_FLOW_MIN;
    const kept = keyed ? keptFlows.get(text) : undefined;
    if (kept !== undefined) keptFlowStats.hits++;
    let value = kept !== undefined ? copyParsed(kept) : flowValue(new FlowText(text, more, starts), at, this.positions, this.depth, this.keepDepth);
    if (keyed && kept === undefined && value !== GIVE_UP && no === first.no) {
      keepFlow(text, value);
      value = copyParsed(value);
    }
    this.blocks.push([first.no + 1, no]);
    while (this.i < this.lines.length && this.lines[this.i].no <= no) this.i++;
    return value;
  }

  /**
   * A block scalar (`|` literal, `>` folded; `-` strip, `+` keep) under the line just read: the
   * lines below indented deeper than `indent`, by the first one's indentation. Whitespace-only
   * lines longer than that, more-indented lines in a folded one, indentation indicators and a
   * scalar that ends the text without a line break: the full parser.
   */
  block(style: string, chomp: string, indent: number): unknown {
    const from = this.lines[this.i - 1].no;
    let at = -1;
    const parts: string[] = [];
    let n = from;
    // the text after its last line break is no line (a kept final blank line would count twice)
    const count = this.raw[this.raw.length - 1] === '' ? this.raw.length - 1 : this.raw.length;
    for (; n < count; n++) {
      const l = this.raw[n];
      const trimmed = l.trimStart();
      const ind = l.length - trimmed.length;
      if (trimmed === '') {
        if (at >= 0 ? ind > at : ind > indent + 1) return giveUp('block scalar: whitespace line longer than its indentation', n + 1);
        parts.push('');
        continue;
      }
      if (at < 0) {
        if (ind <= indent) break;
        at = ind;
      } else if (ind < at) break;
      parts.push(l.slice(at));
    }
    // PyYAML ends a block scalar that ends the text without a line break without one (yaml-load.ts)
    const unended = n === this.raw.length && this.raw[n - 1] !== '';
    if (at < 0 || (unended && this.raw[n - 1].trim() === '')) return giveUp('block scalar: empty or ends in white space', from);
    this.blocks.push([from + 1, n]);
    while (this.i < this.lines.length && this.lines[this.i].no <= n) this.i++;
    let end = parts.length;
    while (parts[end - 1] === '') end--;
    const text = style === '|' ? parts.slice(0, end).join('\n') : folded(parts.slice(0, end));
    if (chomp === '-' || unended) return text;
    return chomp === '+' ? text + '\n'.repeat(parts.length - end + 1) : text + '\n';
  }

  /** A scalar alone on the line below its key or dash, and nothing more below it. */
  lineScalar(indent: number): unknown {
    const line = this.lines[this.i];
    const after = this.lines[this.i + 1];
    this.i++;
    if (line.text[0] === '"' || line.text[0] === "'") return this.value(line.text, indent, false);
    return after && after.indent > indent ? this.plainLines(line.text, indent) : scalar(line.text);
  }
}

/** A line of a multi-line plain scalar: no comment, no `key:` in it, no indicator first. */
function plainLine(body: string): boolean {
  return !(SPECIAL_START.test(body) || body.includes(' #') || body.includes(': ') || body.endsWith(':') || body.includes('\t'));
}

/**
 * A folded block scalar's lines joined: a line break between two lines is a space, blank lines
 * between them are line breaks; a more-indented line (white space first) keeps the line breaks
 * around it.
 */
function folded(parts: string[]): string {
  let text = '';
  let blanks = 0;
  let prev = '';
  for (const p of parts) {
    if (p === '') {
      blanks++;
      continue;
    }
    if (prev === '') text += '\n'.repeat(blanks);
    else if (prev[0] === ' ' || p[0] === ' ') text += '\n'.repeat(blanks + 1);
    else text += blanks === 0 ? ' ' : '\n'.repeat(blanks);
    text += p;
    prev = p;
    blanks = 0;
  }
  return text;
}

function decline(why: string): undefined {
  declined.why = why;
  declined.line = 0;
  return undefined;
}

/**
 * Parses `text` when it is in the simple subset; undefined means "use the full parser". Key
 * positions are kept for maps down to `keepDepth` (see POSITIONS_DEPTH); where they are kept
 * changes neither the value nor what the fast path takes.
 */
export function fastYaml(source: string, keepDepth = POSITIONS_DEPTH): FastResult | undefined {
  if (ODD_SPACE.test(source)) return decline('Unicode line break, white space other than space and tab, or a control character');
  let text = source;
  if (text.includes('\r')) {
    // Windows line endings are line breaks like any other; a lone carriage return is the full parser's
    if (/\r(?!\n)/.test(text)) return decline('carriage return');
    text = text.replaceAll('\r\n', '\n');
  }
  const lines: Line[] = [];
  const markers: number[] = [];
  // each line read where it is in the text (no list of them all: Reader.raw makes one when a
  // block scalar or a flow needs it), its body the one string made of it
  for (let start = 0, n = 0; start <= text.length; n++) {
    const from = start;
    let end = text.indexOf('\n', from);
    if (end < 0) end = text.length;
    start = end + 1;
    let at = from;
    while (text.charCodeAt(at) === 32) at++;
    const ind = at - from;
    const c = text.charCodeAt(at);
    // indentation is spaces; a tab there (or on a white-space line) is the full parser's
    if (c === 9) return decline('tab in indentation');
    if (at === end || c === 35 /* # */) continue;
    const body = text.slice(at, end);
    // `---`, `...` (45, 46 thrice) and `%` (37) lines only: not every `- item` line (a third of a state file's)
    if (((c === 45 || c === 46) && text.charCodeAt(at + 1) === c && text.charCodeAt(at + 2) === c) || c === 37) {
      // a document start before any content (map files open with it); any other marker: the full parser
      if (lines.length === 0 && ind === 0 && /^---(?:\s+#.*)?\s*$/.test(body)) continue;
      // a document end with nothing but comments after it
      if (ind === 0 && /^\.\.\.(?:\s+#.*)?\s*$/.test(body)) {
        if (
          text
            .slice(start)
            .split('\n')
            .every((r) => r.trim() === '' || r.trimStart().startsWith('#'))
        )
          break;
        return decline('content after a document end');
      }
      // indented, it is the text of a block scalar (a key's `-----BEGIN`) or the full parser's
      if (ind === 0) return decline('document marker or directive');
      markers.push(n + 1);
      continue;
    }
    lines.push({ indent: ind, text: body.trimEnd(), no: n + 1 });
  }
  // a Map, not a WeakMap: it lives no longer than the result, and a large WeakMap is work for every GC
  const positions: FastPositions = new Map();
  if (lines.length === 0) return { value: null, positions };
  const reader = new Reader(lines, positions, text, keepDepth);
  const first = lines[0];
  let value: unknown;
  if (first.text[0] === '{' || first.text[0] === '[') {
    // the document is one flow collection (`load_yaml` of a value `| yaml` wrote)
    reader.i = 1;
    value = reader.flow(first.text, -1);
  } else if (!isEntry(first.text)) value = reader.lineScalar(-1);
  else value = reader.node(first.indent);
  if (value === GIVE_UP) return undefined;
  if (reader.i < lines.length) return decline('lines after the document root');
  if (reader.anchors.merged && hasIndexKey(value)) return decline('integer-like key beside a merge key');
  if (markers.some((no) => !reader.blocks.some(([a, b]) => no >= a && no <= b))) return decline('indented marker outside a block scalar');
  // the full loader would have moved continuation lines: its positions are theirs once moved
  if (reader.reindented) for (const [into, at, column] of reader.moved) into[at] = column;
  return { value, positions };
}
