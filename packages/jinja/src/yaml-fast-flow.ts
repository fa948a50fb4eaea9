/**
 * Flow collections for the fast YAML path (yaml-fast.ts): `{...}` and `[...]` on one line or
 * wrapped over several, as `| json`, `| yaml` and PyYAML's dump write them.
 */
import { setKey } from '@brine/core';
import { escapeAt, GIVE_UP, giveUp, plain, SPECIAL_START, trailingOk, type FastPositions, type KeyPositions } from './yaml-scalars.js';

/**
 * Key positions are kept for the maps diagnostics point into: a file's IDs (depth 0), their
 * state declarations (1) and the argument maps in a declaration's list (3); not deeper ones.
 */
export const POSITIONS_DEPTH = 3;

/** A quoted scalar on one line with only the escapes JSON reads alike (fastYaml declined control characters). */
const DOUBLE_QUOTED = /"((?:[^"\\\n\t]|\\["\\/nt])*)"/y;
const SINGLE_QUOTED = /'((?:[^'\n]|'')*)'(?!')/y;

/**
 * The text of a flow collection as it is read: one line, then the next ones as the collection
 * goes on. Scalars may go on over several lines (PyYAML's dump wraps long ones): the line break
 * and the spaces around it fold into one space; a blank line in one is left to the full parser.
 */
export class FlowText {
  text: string;
  i = 0;
  readonly more: () => string | undefined;
  /** Each line's offset in `text`. */
  readonly starts: number[];
  constructor(first: string, more: () => string | undefined, starts: number[]) {
    this.text = first;
    this.more = more;
    this.starts = starts;
  }

  nextLine(): boolean {
    const line = this.more();
    if (line === undefined) return false;
    this.starts.push(this.text.length + 1);
    this.text += '\n' + line;
    return true;
  }

  /** Past spaces and line breaks, which separate tokens. */
  space(): void {
    do {
      for (let c = this.text.charCodeAt(this.i); c === 32 || c === 10; c = this.text.charCodeAt(++this.i));
    } while (this.i >= this.text.length && this.nextLine());
  }

  quoted(fold: boolean): unknown {
    // read in place (a `| json` line has a quoted scalar every few characters: no copy of the rest each)
    const double = this.text[this.i] === '"';
    const re = double ? DOUBLE_QUOTED : SINGLE_QUOTED;
    re.lastIndex = this.i;
    const m = re.exec(this.text);
    if (m) {
      this.i += m[0].length;
      if (!double) return m[1].includes("''") ? m[1].replace(/''/g, "'") : m[1];
      return m[1].includes('\\') ? JSON.parse(`"${m[1]}"`) : m[1];
    }
    return fold ? this.foldedQuoted() : giveUp('flow: quoted key with escapes or over lines');
  }

  /**
   * A quoted scalar over several lines, or with escapes: a line break and the white space around
   * it fold into one space, each blank line after it is a line break; in a double-quoted one a
   * backslash before the break joins the lines, and white space an escape wrote stays.
   */
  foldedQuoted(): unknown {
    const q = this.text[this.i];
    let out = '';
    // out's length up to the last escape or fold: white space before it is not trimmed at a break
    let hard = 0;
    for (let j = this.i + 1; ;) {
      if (j >= this.text.length && !this.nextLine()) return giveUp('unclosed quoted scalar');
      const c = this.text[j];
      if (c === q && (q === '"' || this.text[j + 1] !== "'")) {
        this.i = j + 1;
        return out;
      }
      if (c === "'" && q === "'") {
        out += "'";
        j += 2;
      } else if (c === '\\' && q === '"') {
        if (j + 1 >= this.text.length && !this.nextLine()) return giveUp('unclosed quoted scalar');
        if (this.text[j + 1] === '\n') {
          // an escaped line break: the lines join with nothing between them
          j += 2;
          while (this.text[j] === ' ') j++;
          if (j >= this.text.length || this.text[j] === '\n') return giveUp('double-quoted: blank line after an escaped line break');
        } else {
          const e = escapeAt(this.text, j + 1);
          if (!e) return giveUp('double-quoted: escape');
          out += e.s;
          j += 1 + e.len;
        }
        hard = out.length;
      } else if (c === '\n') {
        // a line break and the spaces around it: one space; each blank line after it: a line break
        let breaks = 0;
        while (j < this.text.length || this.nextLine()) {
          if (this.text[j] === '\n') breaks++;
          else if (this.text[j] !== ' ') break;
          j++;
        }
        let end = out.length;
        while (end > hard && (out[end - 1] === ' ' || out[end - 1] === '\t')) end--;
        out = out.slice(0, end) + (breaks === 1 ? ' ' : '\n'.repeat(breaks - 1));
        hard = out.length;
      } else {
        out += c;
        j++;
      }
    }
  }

  plainScalar(fold: boolean): unknown {
    let raw = '';
    for (;;) {
      const start = this.i;
      const text = this.text;
      while (this.i < text.length) {
        const c = text[this.i];
        if (c === ',' || c === '[' || c === ']' || c === '{' || c === '}' || c === '#' || c === '\n') break;
        const d = text[this.i + 1];
        if (c === ':' && (d === ' ' || d === ',' || d === '}' || d === ']' || d === '\n' || d === undefined)) break;
        this.i++;
      }
      raw += text.slice(start, this.i);
      if (raw.trim() === '' || SPECIAL_START.test(raw) || !fold || (this.i < text.length && text[this.i] !== '\n')) break;
      // at the end of a line: the scalar goes on below unless an indicator comes first
      const end = this.i;
      this.space();
      const c = this.text[this.i];
      if (this.i === end || c === undefined || ',[]{}#:'.includes(c)) {
        this.i = end;
        break;
      }
      const breaks = this.text.slice(end, this.i).split('\n').length - 1;
      raw = raw.trimEnd() + (breaks === 1 ? ' ' : '\n'.repeat(breaks - 1));
    }
    raw = raw.trimEnd();
    if (raw === '' || this.text[this.i] === '#' || SPECIAL_START.test(raw) || raw.includes('\t')) return giveUp('flow: plain scalar');
    return plain(raw);
  }
}

/**
 * A flow collection (`{{ x | json }}` and `| yaml` put them in SLS files), on one line or more:
 * maps and lists of quoted or plain scalars, string keys only. Anything else gives up.
 */
export function flowValue(
  ft: FlowText,
  at: (into: KeyPositions, key: string, offset: number) => void,
  positions: FastPositions,
  base: number,
  keepDepth = POSITIONS_DEPTH,
): unknown {
  const node = (depth: number): unknown => {
    ft.space();
    const c = ft.text[ft.i];
    if (c === '{' || c === '[') return depth > 64 ? giveUp('flow: too deep') : collection(depth + 1);
    return c === '"' || c === "'" ? ft.quoted(true) : ft.plainScalar(true);
  };
  const collection = (depth: number): unknown => {
    const isMap = ft.text[ft.i] === '{';
    const close = isMap ? '}' : ']';
    ft.i++;
    const list: unknown[] = [];
    const map: Record<string, unknown> = {};
    const pos: KeyPositions | undefined = isMap && base + depth <= keepDepth ? [] : undefined;
    if (pos) positions.set(map, pos);
    for (;;) {
      ft.space();
      if (ft.text[ft.i] === close) {
        ft.i++;
        return isMap ? map : list;
      }
      if (isMap) {
        const start = ft.i;
        const key = ft.text[ft.i] === '"' || ft.text[ft.i] === "'" ? ft.quoted(false) : ft.plainScalar(false);
        if (typeof key !== 'string' || Object.hasOwn(map, key) || key === '__proto__' || key === '<<' || ft.text[ft.i] !== ':')
          return giveUp('flow: key (duplicate, merge, non-string)');
        ft.i++;
        if (pos) at(pos, key, start);
        ft.space();
        const v = ft.text[ft.i] === ',' || ft.text[ft.i] === '}' ? null : node(depth);
        if (v === GIVE_UP) return GIVE_UP;
        setKey(map, key, v);
      } else {
        const v = node(depth);
        // `[a: b]` is a map inside the list
        if (v === GIVE_UP || ft.text[ft.i] === ':') return v === GIVE_UP ? GIVE_UP : giveUp('flow: map in a list');
        list.push(v);
      }
      ft.space();
      if (ft.text[ft.i] === ',') ft.i++;
      else if (ft.text[ft.i] !== close) return giveUp('flow: separator');
    }
  };
  const value = collection(0);
  if (value === GIVE_UP || !trailingOk(ft.text.slice(ft.i))) return value === GIVE_UP ? GIVE_UP : giveUp('flow: text after the collection');
  return value;
}
