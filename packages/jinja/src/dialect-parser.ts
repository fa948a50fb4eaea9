/**
 * The parsing half of our Jinja dialect: a tokenizer and parser subclass of nunjucks' own that
 * read Jinja2 syntax nunjucks does not (trailing commas, tuples, slices, chained conditional
 * expressions, tests with an argument and no parentheses, `{% for x in y if c %}`,
 * `{% break %}` / `{% continue %}`, `{% set a, b = t %}`). The compiler is in dialect.ts.
 */
import { nunjucks, NunjucksParser as Parser } from './nunjucks-lib.js';

export { nunjucks };
export const nodes: any = nunjucks.nodes;
export const lexer: any = nunjucks.lexer;
const Tokenizer: any = lexer.lex('', {}).constructor;

/**
 * Like Jinja's lexer, `}}` inside an open `{` is two closing braces, not the end of the
 * expression: `{{ {'a': {'b': 1}} }}` works.
 */
export class BalancedTokenizer extends Tokenizer {
  depth = 0;
  /** Whether the data token being read is a comment: `#}` in plain text is text, as in Jinja. */
  commentToken = false;

  /** A string literal with Python's escapes; an unknown escape (`'\d'`) keeps its backslash. */
  _parseString(delimiter: string): string {
    this.forward();
    let out = '';
    while (!this.isFinished() && this.current() !== delimiter) {
      const cur = this.current();
      this.forward();
      if (cur !== '\\') {
        out += cur;
        continue;
      }
      const c = this.current();
      const simple = PY_ESCAPES[c];
      if (simple !== undefined) {
        out += simple;
        this.forward();
      } else if (c === 'x' || c === 'u' || c === 'U') {
        const len = c === 'x' ? 2 : c === 'u' ? 4 : 8;
        const hex = this.str.slice(this.index + 1, this.index + 1 + len);
        if (!new RegExp(`^[0-9a-fA-F]{${len}}$`).test(hex)) {
          out += '\\';
          continue;
        }
        out += String.fromCodePoint(parseInt(hex, 16));
        for (let i = 0; i <= len; i++) this.forward();
      } else if (c === '\n') {
        this.forward();
      } else {
        out += '\\';
      }
    }
    this.forward();
    return out;
  }

  _matches(s: string): boolean {
    if (s === '#}' && !this.in_code && !this.commentToken) return false;
    return super._matches(s);
  }

  nextToken(): any {
    if (!this.in_code) this.commentToken = this.str.startsWith('{#', this.index);
    if (this.in_code && this.depth > 0 && this.current() === '}') {
      const lineno = this.lineno;
      const colno = this.colno;
      this.forward();
      this.depth--;
      return { type: lexer.TOKEN_RIGHT_CURLY, value: '}', lineno, colno };
    }
    const tok = super.nextToken();
    if (tok) {
      if (tok.type === lexer.TOKEN_LEFT_CURLY) this.depth++;
      else if (tok.type === lexer.TOKEN_RIGHT_CURLY) this.depth = Math.max(0, this.depth - 1);
      else if (tok.type === lexer.TOKEN_VARIABLE_START || tok.type === lexer.TOKEN_BLOCK_START) this.depth = 0;
    }
    return tok;
  }
}

const PY_ESCAPES: Record<string, string> = {
  '\\': '\\',
  "'": "'",
  '"': '"',
  n: '\n',
  t: '\t',
  r: '\r',
  a: '\x07',
  b: '\b',
  f: '\f',
  v: '\v',
  '0': '\0',
};

/** Nodes of our own; the compiler (dialect.ts) knows how to emit them. */
export const PyTruthy = nodes.Node.extend('PyTruthy', { fields: ['target'] });
export const PySlice = nodes.Node.extend('PySlice', { fields: ['target', 'start', 'stop', 'step'] });
/** A tuple: an Array for everything but printing (`(1,)`, `('a', 'b')`). */
export const PyTuple = nodes.Array.extend('PyTuple');
/** `{% break %}` / `{% continue %}`. */
export const PyLoopControl = nodes.Node.extend('PyLoopControl', { fields: ['kind'] });
/** The iterable of `{% for name in arr if cond %}`: only the items `cond` holds for. */
export const PyLoopFilter = nodes.Node.extend('PyLoopFilter', { fields: ['arr', 'name', 'cond'] });
/** `x is name(args)` / `x is name arg` / `x is name`. */
export const PyTest = nodes.Node.extend('PyTest', { fields: ['target', 'name', 'args'] });
/** `*args` in a call: the items of `target` as positional arguments. */
export const PySpread = nodes.Node.extend('PySpread', { fields: ['target'] });
export const OWN_NODES = [PyTruthy, PySlice, PyTuple, PyLoopControl, PyLoopFilter, PyTest, PySpread];

const CLOSING = new Set<string>();
function isClosing(t: any): boolean {
  if (CLOSING.size === 0) for (const c of [lexer.TOKEN_RIGHT_PAREN, lexer.TOKEN_RIGHT_BRACKET, lexer.TOKEN_RIGHT_CURLY]) CLOSING.add(c);
  return !!t && CLOSING.has(t.type);
}

/** Tokens that start the single argument of a test written without parentheses. */
function startsTestArg(t: any): boolean {
  if (!t) return false;
  if (t.type === lexer.TOKEN_SYMBOL) return !['else', 'or', 'and', 'if', 'in', 'not', 'is', 'recursive'].includes(t.value);
  return [
    lexer.TOKEN_STRING,
    lexer.TOKEN_INT,
    lexer.TOKEN_FLOAT,
    lexer.TOKEN_BOOLEAN,
    lexer.TOKEN_NONE,
    lexer.TOKEN_LEFT_PAREN,
    lexer.TOKEN_LEFT_BRACKET,
    lexer.TOKEN_LEFT_CURLY,
  ].includes(t.type);
}

export class DialectParser extends Parser {
  /** The template being parsed; extensions use it to resolve `./` paths. */
  templateName = '';
  /** How many `for` bodies enclose the current position (for break/continue). */
  loopDepth = 0;

  /** Lists, dicts and tuples as Python writes them: a trailing comma is allowed, `(x,)` is a tuple. */
  parseAggregate(): any {
    const tok = this.nextToken();
    let node: any;
    if (tok.type === lexer.TOKEN_LEFT_PAREN) node = new nodes.Group(tok.lineno, tok.colno);
    else if (tok.type === lexer.TOKEN_LEFT_BRACKET) node = new nodes.Array(tok.lineno, tok.colno);
    else if (tok.type === lexer.TOKEN_LEFT_CURLY) node = new nodes.Dict(tok.lineno, tok.colno);
    else return null;
    let trailingComma = false;
    for (;;) {
      if (isClosing(this.peekToken())) {
        this.nextToken();
        break;
      }
      if (node.children.length > 0) {
        if (!this.skip(lexer.TOKEN_COMMA)) this.fail('expected a comma between the items', tok.lineno, tok.colno);
        trailingComma = true;
        if (isClosing(this.peekToken())) {
          this.nextToken();
          break;
        }
      }
      trailingComma = false;
      if (node instanceof nodes.Dict) {
        const key = this.parseExpression();
        if (!this.skip(lexer.TOKEN_COLON)) this.fail('expected a colon after the dict key', tok.lineno, tok.colno);
        const value = this.parseExpression();
        node.addChild(new nodes.Pair(key.lineno, key.colno, key, value));
      } else {
        node.addChild(this.parseExpression());
      }
    }
    if (node instanceof nodes.Group && (trailingComma || node.children.length !== 1)) {
      const tuple = new PyTuple(tok.lineno, tok.colno);
      for (const c of node.children) tuple.addChild(c);
      return tuple;
    }
    return node;
  }

  /** Set while a macro's own parameter list is read: Jinja refuses a trailing comma there. */
  private macroSignature = false;

  /** Call arguments; Python allows a trailing comma (`f(a, b,)`). */
  parseSignature(tolerant?: boolean, noParens?: boolean): any {
    const trailingOk = !this.macroSignature;
    this.macroSignature = false;
    let tok = this.peekToken();
    if (!noParens && tok.type !== lexer.TOKEN_LEFT_PAREN) {
      if (tolerant) return null;
      this.fail('expected arguments', tok.lineno, tok.colno);
    }
    if (tok.type === lexer.TOKEN_LEFT_PAREN) tok = this.nextToken();
    const args = new nodes.NodeList(tok.lineno, tok.colno);
    const kwargs = new nodes.KeywordArgs(tok.lineno, tok.colno);
    let first = true;
    for (;;) {
      tok = this.peekToken();
      if (!noParens && tok.type === lexer.TOKEN_RIGHT_PAREN) {
        this.nextToken();
        break;
      }
      if (noParens && tok.type === lexer.TOKEN_BLOCK_END) break;
      if (!first) {
        if (!this.skip(lexer.TOKEN_COMMA)) this.fail('expected a comma between the arguments', tok.lineno, tok.colno);
        const after = this.peekToken();
        if (!noParens && after.type === lexer.TOKEN_RIGHT_PAREN) {
          if (!trailingOk) this.fail('expected a parameter name, got )', after.lineno, after.colno);
          this.nextToken();
          break;
        }
      }
      first = false;
      if (!noParens && this.skipValue(lexer.TOKEN_OPERATOR, '**')) {
        kwargs.spread = this.parseExpression();
        continue;
      }
      if (!noParens && this.skipValue(lexer.TOKEN_OPERATOR, '*')) {
        args.addChild(new PySpread(tok.lineno, tok.colno, this.parseExpression()));
        continue;
      }
      const arg = this.parseExpression();
      if (this.skipValue(lexer.TOKEN_OPERATOR, '=')) kwargs.addChild(new nodes.Pair(arg.lineno, arg.colno, arg, this.parseExpression()));
      else args.addChild(arg);
    }
    if (kwargs.children.length || kwargs.spread) args.addChild(kwargs);
    return args;
  }

  /** `a if x else b if y else c`: the else branch is itself a conditional expression. */
  parseInlineIf(): any {
    let node = this.parseOr();
    if (this.skipSymbol('if')) {
      const cond = this.parseOr();
      const body = node;
      node = new nodes.InlineIf(node.lineno, node.colno);
      node.body = body;
      node.cond = cond;
      node.else_ = this.skipSymbol('else') ? this.parseInlineIf() : null;
    }
    return node;
  }

  /** Jinja's tests: `x is [not] name`, `name(args)`, `name arg` (one argument, no parentheses). */
  parseIs(): any {
    let node = this.parseCompare();
    const isTok = this.peekToken();
    if (this.skipSymbol('is')) {
      const not = this.skipSymbol('not');
      const nameTok = this.nextToken();
      let name: string;
      if (nameTok.type === lexer.TOKEN_SYMBOL) name = nameTok.value;
      else if (nameTok.type === lexer.TOKEN_NONE || nameTok.type === lexer.TOKEN_BOOLEAN) name = String(nameTok.value).toLowerCase();
      else this.fail(`expected a test name after 'is', got ${nameTok.value}`, nameTok.lineno, nameTok.colno);
      while (this.skipValue(lexer.TOKEN_OPERATOR, '.')) name! += '.' + this.expect(lexer.TOKEN_SYMBOL).value;
      let args: any;
      const next = this.peekToken();
      if (next && next.type === lexer.TOKEN_LEFT_PAREN) {
        args = this.parseSignature();
      } else if (startsTestArg(next)) {
        args = new nodes.NodeList(next.lineno, next.colno);
        args.addChild(this.parsePrimary());
      } else {
        args = new nodes.NodeList(nameTok.lineno, nameTok.colno);
      }
      node = new PyTest(isTok.lineno, isTok.colno, node, new nodes.Literal(nameTok.lineno, nameTok.colno, name!), args);
      if (not) node = new nodes.Not(isTok.lineno, isTok.colno, node);
    }
    return node;
  }

  /** `{% for a[, b] in seq [if cond] %}...{% else %}...{% endfor %}`. */
  parseFor(): any {
    const forTok = this.peekToken();
    if (!this.skipSymbol('for')) this.fail('expected for', forTok.lineno, forTok.colno);
    const node = new nodes.For(forTok.lineno, forTok.colno);
    let name = this.parsePrimary();
    if (this.peekToken().type === lexer.TOKEN_COMMA) {
      const tuple = new nodes.Array(name.lineno, name.colno);
      tuple.addChild(name);
      while (this.skip(lexer.TOKEN_COMMA)) {
        if (this.peekToken().type === lexer.TOKEN_SYMBOL && this.peekToken().value === 'in') break;
        tuple.addChild(this.parsePrimary());
      }
      name = tuple;
    } else if (name instanceof PyTuple) {
      const tuple = new nodes.Array(name.lineno, name.colno);
      for (const c of name.children) tuple.addChild(c);
      name = tuple;
    }
    const targets = name instanceof nodes.Array ? name.children : [name];
    if (!targets.every((t: any) => t instanceof nodes.Symbol)) this.fail('for: the loop variables must be names', forTok.lineno, forTok.colno);
    node.name = name;
    if (!this.skipSymbol('in')) this.fail('for: expected "in"', forTok.lineno, forTok.colno);
    let arr = this.parseOr();
    if (this.skipSymbol('if')) {
      const cond = this.parseExpression();
      arr = new PyLoopFilter(arr.lineno, arr.colno, arr, name, cond);
    }
    if (this.skipSymbol('recursive')) this.fail('for: recursive loops are not supported', forTok.lineno, forTok.colno);
    node.arr = arr;
    this.advanceAfterBlockEnd(forTok.value);
    this.loopDepth++;
    try {
      node.body = this.parseUntilBlocks('endfor', 'else');
    } finally {
      this.loopDepth--;
    }
    if (this.skipSymbol('else')) {
      this.advanceAfterBlockEnd('else');
      node.else_ = this.parseUntilBlocks('endfor');
    }
    this.advanceAfterBlockEnd();
    return node;
  }

  /** A macro body is a new function: loop controls outside it do not reach in. */
  parseMacro(): any {
    const depth = this.loopDepth;
    this.loopDepth = 0;
    try {
      const macroTok = this.peekToken();
      if (!this.skipSymbol('macro')) this.fail('expected macro', macroTok.lineno, macroTok.colno);
      const name = this.parsePrimary(true);
      this.macroSignature = true;
      const node = new nodes.Macro(macroTok.lineno, macroTok.colno, name, this.parseSignature());
      this.advanceAfterBlockEnd(macroTok.value);
      node.body = this.parseUntilBlocks('endmacro');
      this.advanceAfterBlockEnd();
      return node;
    } finally {
      this.loopDepth = depth;
    }
  }

  /** `{% set a, b = pair %}` unpacks; `{% set t = 1, 2 %}` makes a tuple. */
  parseSet(): any {
    const tag = this.peekToken();
    if (!this.skipSymbol('set')) this.fail('expected set', tag.lineno, tag.colno);
    const node = new nodes.Set(tag.lineno, tag.colno, []);
    for (;;) {
      const target = this.parsePrimary();
      node.targets.push(target);
      if (!this.skip(lexer.TOKEN_COMMA)) break;
    }
    if (!this.skipValue(lexer.TOKEN_OPERATOR, '=')) {
      if (!this.skip(lexer.TOKEN_BLOCK_END)) this.fail('set: expected = or the end of the tag', tag.lineno, tag.colno);
      node.body = new nodes.Capture(tag.lineno, tag.colno, this.parseUntilBlocks('endset'));
      node.value = null;
      this.advanceAfterBlockEnd();
      return node;
    }
    let value = this.parseExpression();
    if (this.peekToken().type === lexer.TOKEN_COMMA) {
      const tuple = new PyTuple(value.lineno, value.colno);
      tuple.addChild(value);
      while (this.skip(lexer.TOKEN_COMMA)) {
        if (this.peekToken().type === lexer.TOKEN_BLOCK_END) break;
        tuple.addChild(this.parseExpression());
      }
      value = tuple;
    }
    node.value = value;
    this.advanceAfterBlockEnd(tag.value);
    return node;
  }

  parseStatement(): any {
    const tok = this.peekToken();
    if (tok && tok.type === lexer.TOKEN_SYMBOL && (tok.value === 'break' || tok.value === 'continue')) {
      if (this.breakOnBlocks?.includes(tok.value)) return null;
      this.nextToken();
      if (this.loopDepth === 0) this.fail(`'${tok.value}' outside of a for loop`, tok.lineno, tok.colno);
      this.advanceAfterBlockEnd(tok.value);
      return new PyLoopControl(tok.lineno, tok.colno, tok.value);
    }
    return super.parseStatement();
  }

  parsePostfix(node: any): any {
    for (let tok = this.peekToken(); tok; tok = this.peekToken()) {
      if (tok.type === lexer.TOKEN_LEFT_PAREN) {
        node = new nodes.FunCall(tok.lineno, tok.colno, node, this.parseSignature());
      } else if (tok.type === lexer.TOKEN_LEFT_BRACKET) {
        node = this.parseSubscript(node, tok);
      } else if (tok.type === lexer.TOKEN_OPERATOR && tok.value === '.') {
        this.nextToken();
        const val = this.nextToken();
        if (val.type === lexer.TOKEN_INT) {
          // `t.0`: Jinja reads an integer attribute as an index.
          node = new nodes.LookupVal(tok.lineno, tok.colno, node, new nodes.Literal(val.lineno, val.colno, parseInt(val.value, 10)));
          continue;
        }
        if (val.type !== lexer.TOKEN_SYMBOL && val.type !== lexer.TOKEN_BOOLEAN && val.type !== lexer.TOKEN_NONE) {
          this.fail('expected name as lookup value, got ' + val.value, val.lineno, val.colno);
        }
        node = new nodes.LookupVal(tok.lineno, tok.colno, node, new nodes.Literal(val.lineno, val.colno, String(val.value)));
      } else {
        break;
      }
    }
    return node;
  }

  /** `x[i]`, `x[a, b]` (a tuple key) or a slice `x[a:b:c]`. */
  private parseSubscript(node: any, tok: any): any {
    this.nextToken();
    const parts: any[] = [null, null, null];
    let idx = 0;
    let isSlice = false;
    for (;;) {
      if (this.skip(lexer.TOKEN_RIGHT_BRACKET)) break;
      if (this.skip(lexer.TOKEN_COLON)) {
        isSlice = true;
        idx++;
        if (idx > 2) this.fail('too many slice components', tok.lineno, tok.colno);
        continue;
      }
      if (parts[idx] !== null) this.fail('expected ] or : in subscript', tok.lineno, tok.colno);
      parts[idx] = this.parseExpression();
    }
    if (isSlice) return new PySlice(tok.lineno, tok.colno, node, parts[0], parts[1], parts[2]);
    if (parts[0] === null) this.fail('empty subscript', tok.lineno, tok.colno);
    return new nodes.LookupVal(tok.lineno, tok.colno, node, parts[0]);
  }
}
