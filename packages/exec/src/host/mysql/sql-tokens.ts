/**
 * Words, quoted names, string literals and marks of the SQL that SHOW GRANTS prints (and of
 * the grant and database text a state gives), after the manual's "Schema Object Names" and
 * "String Literals".
 */

export type Token =
  | { kind: 'word'; text: string } // bare: a keyword or an unquoted name
  | { kind: 'name'; text: string } // `quoted`, unquoted here
  | { kind: 'string'; text: string } // 'literal' or "literal", unescaped here
  | { kind: 'mark'; text: string }; // ( ) , . @ * =

export class SqlTextError extends Error {
  override name = 'SqlTextError';
}

const MARKS = '(),.@*=';
const BREAKS = new Set([...MARKS, '`', "'", '"']);

/** The manual's backslash escapes in a string literal; `\%` and `\_` keep their backslash. */
const ESCAPES: Record<string, string> = { '0': '\0', b: '\b', n: '\n', r: '\r', t: '\t', Z: '\x1a', '%': '\\%', _: '\\_' };

/** `quoted` text from `start` (the opening backtick): the name and the index after its closing backtick. */
function quotedName(text: string, start: number): [string, number] {
  let out = '';
  let i = start + 1;
  for (;;) {
    const end = text.indexOf('`', i);
    if (end < 0) throw new SqlTextError(`unclosed quoted name at ${start}`);
    out += text.slice(i, end);
    if (text[end + 1] !== '`') return [out, end + 1];
    out += '`';
    i = end + 2;
  }
}

/** A string literal from `start` (its opening quote): its value and the index after it. */
function stringLiteral(text: string, start: number): [string, number] {
  const quote = text[start]!;
  let out = '';
  for (let i = start + 1; i < text.length; i++) {
    const c = text[i]!;
    if (c === '\\' && i + 1 < text.length) {
      const next = text[++i]!;
      out += ESCAPES[next] ?? next;
    } else if (c !== quote) out += c;
    else if (text[i + 1] === quote) out += text[++i]!;
    else return [out, i + 1];
  }
  throw new SqlTextError(`unclosed string at ${start}`);
}

export function tokenize(text: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (/\s/.test(c)) i++;
    else if (c === '`') {
      const [name, next] = quotedName(text, i);
      out.push({ kind: 'name', text: name });
      i = next;
    } else if (c === "'" || c === '"') {
      const [value, next] = stringLiteral(text, i);
      out.push({ kind: 'string', text: value });
      i = next;
    } else if (MARKS.includes(c)) {
      out.push({ kind: 'mark', text: c });
      i++;
    } else {
      let j = i + 1;
      while (j < text.length && !BREAKS.has(text[j]!) && !/\s/.test(text[j]!)) j++;
      out.push({ kind: 'word', text: text.slice(i, j) });
      i = j;
    }
  }
  return out;
}

/** Reads tokens in order; `word('ON')` and `mark(',')` test the next one. */
export class TokenCursor {
  private readonly tokens: Token[];
  private at = 0;
  constructor(tokens: Token[]) {
    this.tokens = tokens;
  }
  peek(ahead = 0): Token | undefined {
    return this.tokens[this.at + ahead];
  }
  next(): Token | undefined {
    return this.tokens[this.at++];
  }
  done(): boolean {
    return this.at >= this.tokens.length;
  }
  isWord(text: string, ahead = 0): boolean {
    const t = this.peek(ahead);
    return t?.kind === 'word' && t.text.toUpperCase() === text;
  }
  isMark(text: string, ahead = 0): boolean {
    const t = this.peek(ahead);
    return t?.kind === 'mark' && t.text === text;
  }
  /** Takes the next token if it is that word (any case). */
  eatWord(text: string): boolean {
    if (!this.isWord(text)) return false;
    this.at++;
    return true;
  }
  /** Takes the next token if it is that mark. */
  eatMark(text: string): boolean {
    if (!this.isMark(text)) return false;
    this.at++;
    return true;
  }
  /** Whether the tokens left hold these words in a row (a trailing clause such as WITH GRANT OPTION). */
  restHasWords(...words: string[]): boolean {
    for (let ahead = 0; this.at + ahead < this.tokens.length; ahead++) {
      if (words.every((w, k) => this.isWord(w, ahead + k))) return true;
    }
    return false;
  }
}
