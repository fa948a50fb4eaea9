/**
 * Our Jinja dialect on top of nunjucks: a parser and compiler subclass and a runtime object,
 * used only by our environments. Nothing here patches nunjucks globally (unlike
 * `installJinjaCompat`), so other nunjucks users in the process are unaffected.
 *
 * What it adds: Python truthiness (`[]` and `{}` are false), `%` formatting, list `+` and
 * string `*`, tuples, slices, dict literals with variable keys, Python methods on values,
 * `True`/`False`/`None`, str()-style output (`True`, `None`, `['a', 'b']`) and an error when
 * an undefined value is printed (Salt uses Jinja's StrictUndefined).
 */
import { createRequire } from 'node:module';
import { annotate, dialectRuntime } from './dialect-runtime.js';
import { readCompiled, writeCompiled } from './template-cache.js';

const require = createRequire(import.meta.url);
/* eslint-disable @typescript-eslint/no-explicit-any */
export const nunjucks: any = require('nunjucks');
const nodes: any = nunjucks.nodes;
const lexer: any = nunjucks.lexer;
const Parser: any = require('nunjucks/src/parser.js').Parser;
const Compiler: any = require('nunjucks/src/compiler.js').Compiler;
const transformer: any = require('nunjucks/src/transformer.js');
const Tokenizer: any = lexer.lex('', {}).constructor;

/**
 * Like Jinja's lexer, `}}` inside an open `{` is two closing braces, not the end of the
 * expression: `{{ {'a': {'b': 1}} }}` works.
 */
class BalancedTokenizer extends Tokenizer {
  depth = 0;

  nextToken(): any {
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

/** Nodes of our own; the compiler knows how to emit them. */
const PyTruthy = nodes.Node.extend('PyTruthy', { fields: ['target'] });
const PySlice = nodes.Node.extend('PySlice', { fields: ['target', 'start', 'stop', 'step'] });
const OWN_NODES = [PyTruthy, PySlice];

function wrapTruthy(node: any): any {
  return new PyTruthy(node.lineno, node.colno, node);
}

class DialectParser extends Parser {
  /** The template being parsed; extensions use it to resolve `./` paths. */
  templateName = '';

  /** Lists, dicts and tuples as Python writes them: a trailing comma is allowed, `(x,)` is a tuple. */
  parseAggregate(): any {
    const tok = this.nextToken();
    let node: any;
    if (tok.type === lexer.TOKEN_LEFT_PAREN) node = new nodes.Group(tok.lineno, tok.colno);
    else if (tok.type === lexer.TOKEN_LEFT_BRACKET) node = new nodes.Array(tok.lineno, tok.colno);
    else if (tok.type === lexer.TOKEN_LEFT_CURLY) node = new nodes.Dict(tok.lineno, tok.colno);
    else return null;
    const closing = (t: any) => t.type === lexer.TOKEN_RIGHT_PAREN || t.type === lexer.TOKEN_RIGHT_BRACKET || t.type === lexer.TOKEN_RIGHT_CURLY;
    let trailingComma = false;
    for (;;) {
      if (closing(this.peekToken())) {
        this.nextToken();
        break;
      }
      if (node.children.length > 0) {
        if (!this.skip(lexer.TOKEN_COMMA)) this.fail('expected a comma between the items', tok.lineno, tok.colno);
        trailingComma = true;
        if (closing(this.peekToken())) {
          this.nextToken();
          break;
        }
      }
      trailingComma = false;
      if (node instanceof nodes.Dict) {
        const key = this.parsePrimary();
        if (!this.skip(lexer.TOKEN_COLON)) this.fail('expected a colon after the dict key', tok.lineno, tok.colno);
        const value = this.parseExpression();
        node.addChild(new nodes.Pair(key.lineno, key.colno, key, value));
      } else {
        node.addChild(this.parseExpression());
      }
    }
    if (node instanceof nodes.Group && (trailingComma || node.children.length !== 1)) {
      const tuple = new nodes.Array(tok.lineno, tok.colno);
      for (const c of node.children) tuple.addChild(c);
      return tuple;
    }
    return node;
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
        if (val.type !== lexer.TOKEN_SYMBOL) this.fail('expected name as lookup value, got ' + val.value, val.lineno, val.colno);
        node = new nodes.LookupVal(tok.lineno, tok.colno, node, new nodes.Literal(val.lineno, val.colno, val.value));
      } else {
        break;
      }
    }
    return node;
  }

  /** `x[i]` or a slice `x[a:b:c]`. */
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

const COMPARE: Record<string, string> = { '<': '<', '>': '>', '<=': '<=', '>=': '>=', '===': '===', '!==': '!==' };

class DialectCompiler extends Compiler {
  assertType(node: any, ...types: any[]): void {
    if (OWN_NODES.some((t) => node instanceof t) || node instanceof nodes.Capture) return;
    super.assertType(node, ...types);
  }

  /** Jinja's `loop.cycle(...)` beside the loop variables nunjucks binds. */
  _emitLoopBindings(node: any, arr: string, i: string, len: string): void {
    super._emitLoopBindings(node, arr, i, len);
    this._emitLine(`frame.set("loop.cycle", runtime.loopCycle(${i}));`);
  }

  /** `{% set ns.attr = value %}`: Jinja allows attribute assignment on a namespace(). */
  compileSet(node: any, frame: any): void {
    const target = node.targets[0];
    if (node.targets.length === 1 && target instanceof nodes.LookupVal) {
      this._emit('runtime.setAttr(');
      this.compile(target.target, frame);
      this._emit(',');
      this.compile(target.val, frame);
      this._emit(',');
      if (node.value) this._compileExpression(node.value, frame);
      else this.compile(node.body, frame);
      this._emitLine(');');
      return;
    }
    if (node.targets.some((t: any) => !(t instanceof nodes.Symbol))) {
      this.fail('set: only names and namespace attributes (ns.x) can be assigned', node.lineno, node.colno);
    }
    super.compileSet(node, frame);
  }

  compilePyTruthy(node: any, frame: any): void {
    this._emit('runtime.truthy(');
    this.compile(node.target, frame);
    this._emit(')');
  }

  compilePySlice(node: any, frame: any): void {
    this._emit('runtime.slice(');
    this.compile(node.target, frame);
    for (const part of [node.start, node.stop, node.step]) {
      this._emit(',');
      if (part === null) this._emit('null');
      else this.compile(part, frame);
    }
    this._emit(')');
  }

  compileSymbol(node: any, frame: any): void {
    const v = frame.lookup(node.value);
    if (!v && (node.value === 'True' || node.value === 'False' || node.value === 'None')) {
      this._emit(`runtime.constant("${node.value}", context, frame)`);
      return;
    }
    super.compileSymbol(node, frame);
  }

  compileIf(node: any, frame: any, async?: boolean): void {
    node.cond = wrapTruthy(node.cond);
    super.compileIf(node, frame, async);
  }

  compileInlineIf(node: any, frame: any): void {
    node.cond = wrapTruthy(node.cond);
    if (node.else_ === null) node.else_ = new nodes.Literal(node.lineno, node.colno, null);
    super.compileInlineIf(node, frame);
  }

  compileNot(node: any, frame: any): void {
    this._emit('!runtime.truthy(');
    this.compile(node.target, frame);
    this._emit(')');
  }

  private lazyBinOp(fn: string, node: any, frame: any): void {
    this._emit(`runtime.${fn}(`);
    this.compile(node.left, frame);
    this._emit(', () => (');
    this.compile(node.right, frame);
    this._emit('))');
  }

  compileOr(node: any, frame: any): void {
    this.lazyBinOp('or', node, frame);
  }

  compileAnd(node: any, frame: any): void {
    this.lazyBinOp('and', node, frame);
  }

  private callBinOp(fn: string, node: any, frame: any): void {
    this._emit(`runtime.${fn}(`);
    this.compile(node.left, frame);
    this._emit(', ');
    this.compile(node.right, frame);
    this._emit(')');
  }

  compileAdd(node: any, frame: any): void {
    this.callBinOp('add', node, frame);
  }

  compileMul(node: any, frame: any): void {
    this.callBinOp('mul', node, frame);
  }

  compileMod(node: any, frame: any): void {
    this.callBinOp('mod', node, frame);
  }

  compileConcat(node: any, frame: any): void {
    this.callBinOp('concat', node, frame);
  }

  compileCompare(node: any, frame: any): void {
    // Chains (`a < b < c`) are rare in formulas; each link is evaluated pairwise.
    this._emit('(');
    let left = node.expr;
    node.ops.forEach((op: any, i: number) => {
      if (i > 0) this._emit(' && ');
      if (op.type === '==' || op.type === '!=') {
        this._emit(op.type === '!=' ? '!runtime.eq(' : 'runtime.eq(');
        this.compile(left, frame);
        this._emit(', ');
        this.compile(op.expr, frame);
        this._emit(')');
      } else {
        this._emit('(');
        this.compile(left, frame);
        this._emit(` ${COMPARE[op.type] ?? op.type} `);
        this.compile(op.expr, frame);
        this._emit(')');
      }
      left = op.expr;
    });
    this._emit(')');
  }

  compileGroup(node: any, frame: any): void {
    // `(a, b)` is a tuple, not JavaScript's comma operator.
    if (node.children.length > 1) this._compileAggregate(node, frame, '[', ']');
    else super.compileGroup(node, frame);
  }

  compileDict(node: any, frame: any): void {
    // Jinja evaluates keys: `{name: 1}` uses the variable `name`.
    this._emit('runtime.dict([');
    node.children.forEach((pair: any, i: number) => {
      if (i > 0) this._emit(',');
      this._emit('[');
      this.compile(pair.key, frame);
      this._emit(',');
      this._compileExpression(pair.value, frame);
      this._emit(']');
    });
    this._emit('])');
  }

  compileKeywordArgs(node: any, frame: any): void {
    this._emit('runtime.makeKeywordArgs(');
    super.compileDict(node, frame);
    this._emit(')');
  }

  compileLookupVal(node: any, frame: any): void {
    this._emit('runtime.memberLookup((');
    this._compileExpression(node.target, frame);
    this._emit('),');
    this._compileExpression(node.val, frame);
    // A third argument (ignored) evaluated last: a lookup that throws (params['missing'])
    // reports its own line and column, not those of the last call.
    this._emit(`, (lineno = ${node.lineno}, colno = ${node.colno}))`);
  }

  compileFunCall(node: any, frame: any): void {
    if (!(node.name instanceof nodes.LookupVal)) {
      super.compileFunCall(node, frame);
      return;
    }
    const name = this.nameOf(node.name);
    this._emit(`(lineno = ${node.lineno}, colno = ${node.colno}, runtime.callWrap(runtime.methodLookup((`);
    this._compileExpression(node.name.target, frame);
    this._emit('),');
    this._compileExpression(node.name.val, frame);
    this._emit(`), "${name}", context, `);
    this._compileAggregate(node.args, frame, '[', '])');
    this._emit(')');
  }

  compileFor(node: any, frame: any): void {
    if (!(node.name instanceof nodes.Array)) {
      // `for k in dict` iterates the keys, as in Python.
      const arr = node.arr;
      node.arr = new nodes.FunCall(arr.lineno, arr.colno, new nodes.Symbol(arr.lineno, arr.colno, '__brine_iter'), new nodes.NodeList(arr.lineno, arr.colno, [arr]));
    }
    super.compileFor(node, frame);
  }

  private nameOf(node: any): string {
    let name: string;
    try {
      name = this._getNodeName(node);
    } catch {
      name = '--expression--';
    }
    return name.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, ' ');
  }

  compileOutput(node: any, frame: any): void {
    for (const child of node.children) {
      if (child instanceof nodes.TemplateData) {
        if (child.value) {
          this._emit(`${this.buffer} += `);
          this.compileLiteral(child, frame);
          this._emitLine(';');
        }
        continue;
      }
      const name = this.nameOf(child);
      this._emit(`${this.buffer} += runtime.output(`);
      this.compile(child, frame);
      this._emit(`, ${child.lineno}, ${child.colno}, "${name}");\n`);
    }
  }
}

/** Compiles template source to nunjucks' template properties (`root` and blocks). */
export function compileTemplate(src: string, name: string, extensions: any[]): Record<string, any> {
  let props: any;
  try {
    let code = readCompiled(name, src);
    if (code === undefined) {
      const parser = new (DialectParser as any)(new (BalancedTokenizer as any)(src, {}));
      parser.extensions = extensions;
      parser.templateName = name;
      const ast = transformer.transform(parser.parseAsRoot(), [], name);
      const compiler = new (DialectCompiler as any)(name, false);
      compiler.compile(ast);
      code = compiler.getCode() as string;
      writeCompiled(name, src, code);
    }
    props = new Function(code)();
  } catch (e: any) {
    // Parser errors carry 1-based positions already.
    if (e && typeof e === 'object' && !e.brineWhere) e.brineWhere = { file: name, line: e.lineno || undefined, column: e.colno || undefined };
    throw e;
  }
  const runtime = Object.create(dialectRuntime);
  runtime.handleError = (e: unknown, lineno: number, colno: number) => annotate(e, name, lineno, colno);
  const out: Record<string, any> = {};
  for (const key of Object.keys(props)) {
    const fn = props[key];
    out[key] = (env: any, context: any, frame: any, _runtime: any, cb: any) => fn(env, context, frame, runtime, cb);
  }
  return out;
}
