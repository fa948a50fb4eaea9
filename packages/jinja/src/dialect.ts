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
import { annotate, dialectRuntime } from './dialect-runtime.js';
import { HOST_FN } from './host-calls.js';
import { BalancedTokenizer, DialectParser, nodes, nunjucks, OWN_NODES, PyTruthy } from './dialect-parser.js';

/** JavaScript the compiler wrote itself (a temporary), used as an expression. */
const PyRaw = nodes.Node.extend('PyRaw', { fields: ['code'] });
/** A loop body run in a scope of its own. */
const PyScope = nodes.Node.extend('PyScope', { fields: ['body'] });
import { readCompiled, runCompiled, writeCompiled } from './template-cache.js';
import { NunjucksCompiler as Compiler, nunjucksTransformer as transformer } from './nunjucks-lib.js';

export { nunjucks };

function wrapTruthy(node: any): any {
  return new PyTruthy(node.lineno, node.colno, node);
}

const COMPARE: Record<string, string> = { '<': 'lt', '>': 'gt', '<=': 'le', '>=': 'ge' };

const LAZY_LOOP_ATTRS = new Set(['cycle', 'previtem', 'nextitem', 'depth', 'depth0']);

/** Which of the lazily bound `loop.<attr>` a loop body mentions (a `loop` passed on whole counts as all). */
function loopAttrsUsed(body: any): Set<string> {
  const used = new Set<string>();
  const walk = (n: any): void => {
    if (!n || typeof n !== 'object' || used.size === LAZY_LOOP_ATTRS.size) return;
    if (n instanceof nodes.LookupVal && n.target instanceof nodes.Symbol && n.target.value === 'loop' && n.val instanceof nodes.Literal) {
      if (LAZY_LOOP_ATTRS.has(n.val.value)) used.add(n.val.value);
      return;
    }
    if (n instanceof nodes.Symbol && n.value === 'loop') {
      for (const a of LAZY_LOOP_ATTRS) used.add(a);
      return;
    }
    if (n instanceof nodes.For) return void walk(n.arr);
    if (Array.isArray(n)) return void n.forEach(walk);
    if (n.fields) for (const f of n.fields) walk(n[f]);
    if (n.children) n.children.forEach(walk);
  };
  walk(body);
  return used;
}

class DialectCompiler extends Compiler {
  assertType(node: any, ...types: any[]): void {
    if (OWN_NODES.some((t) => node instanceof t) || node instanceof PyRaw || node instanceof PyScope || node instanceof nodes.Capture) return;
    super.assertType(node, ...types);
  }

  /** Jinja's `loop.cycle(...)`, `previtem`, `nextitem` and `depth` beside the loop variables nunjucks binds. */
  _emitLoopBindings(node: any, arr: string, i: string, len: string): void {
    super._emitLoopBindings(node, arr, i, len);
    if (node.name instanceof nodes.Array) {
      // nunjucks binds `for a, b in list` at run time under the name "[object Object]"; bind the
      // real names, which `set` and nested templates look up at run time.
      const sets = node.name.children.map((c: any, u: number) => `frame.set("${c.value}", ${arr}[${i}][${u}]);`).join(' ');
      this._emitLine(`if (runtime.isArray(${arr})) { ${sets} }`);
    }
    // Bound only when the body asks for them: loops are the hot path of big trees.
    const used = loopAttrsUsed(node.body);
    if (used.has('cycle')) this._emitLine(`frame.set("loop.cycle", runtime.loopCycle(${i}));`);
    if (used.has('previtem')) this._emitLine(`frame.set("loop.previtem", runtime.isArray(${arr}) && ${i} > 0 ? ${arr}[${i} - 1] : undefined);`);
    if (used.has('nextitem')) this._emitLine(`frame.set("loop.nextitem", runtime.isArray(${arr}) && ${i} + 1 < ${len} ? ${arr}[${i} + 1] : undefined);`);
    if (used.has('depth')) this._emitLine('frame.set("loop.depth", 1);');
    if (used.has('depth0')) this._emitLine('frame.set("loop.depth0", 0);');
  }

  compilePyLoopControl(node: any): void {
    this._emitLine(node.kind === 'break' ? 'break;' : 'continue;');
  }

  compilePyTuple(node: any, frame: any): void {
    this._emit('runtime.tuple(');
    this._compileAggregate(node, frame, '[', ']');
    this._emit(')');
  }

  /** `x is name(args)`: the test is looked up when it runs, so an unknown test names itself. */
  compilePyTest(node: any, frame: any): void {
    this._emit(`(lineno = ${node.lineno}, colno = ${node.colno}, runtime.test(env, context, `);
    this.compileLiteral(node.name, frame);
    this._emit(', ');
    this.compile(node.target, frame);
    this._emit(', ');
    this._compileAggregate(node.args, frame, '[', ']');
    this._emit('))');
  }

  /** The items of `for name in arr if cond`; `cond` sees the loop variables and nothing of `loop`. */
  compilePyLoopFilter(node: any, frame: any): void {
    const names = node.name instanceof nodes.Array ? node.name.children : [node.name];
    const item = this._tmpid();
    const inner = frame.push();
    const ids = names.map((n: any) => {
      const id = this._tmpid();
      inner.set(n.value, id);
      return id;
    });
    this._emit(`runtime.loopFilter(`);
    this.compile(node.arr, frame);
    this._emit(`, ${names.length > 1}, function(${item}) {`);
    if (names.length > 1) ids.forEach((id: string, i: number) => this._emit(`var ${id} = ${item}[${i}];`));
    else this._emit(`var ${ids[0]} = ${item};`);
    this._emit('return runtime.truthy(');
    this.compile(node.cond, inner);
    this._emit(');})');
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
    if (node.targets.length > 1 && node.value) {
      // `{% set a, b = pair %}` unpacks, as in Python.
      const tmp = this._tmpid();
      this._emit(`var ${tmp} = runtime.unpack(`);
      this._compileExpression(node.value, frame);
      this._emitLine(`, ${node.targets.length});`);
      node.targets.forEach((target: any, i: number) => {
        this.compileNameSet(new nodes.Set(node.lineno, node.colno, [target], new PyRaw(node.lineno, node.colno, `${tmp}[${i}]`)), frame);
      });
      return;
    }
    this.compileNameSet(node, frame);
  }

  /**
   * nunjucks' `set` of names, with Jinja's scopes: a name bound outside the current scope (a loop
   * variable of an enclosing loop, say) gets a new binding here instead of being overwritten,
   * and later reads in this scope look it up at run time.
   */
  private compileNameSet(node: any, frame: any): void {
    const ids = node.targets.map((target: any) => {
      const name = target.value;
      const owner = frame.resolve(name, true);
      let id = owner ? owner.lookup(name) : null;
      if (!id) {
        if (frame.lookup(name)) frame.set(name, '');
        id = this._tmpid();
        this._emitLine(`var ${id};`);
      }
      return id;
    });
    this._emit(ids.join(' = ') + ' = ');
    if (node.value) this._compileExpression(node.value, frame);
    else this.compile(node.body, frame);
    this._emitLine(';');
    node.targets.forEach((target: any, i: number) => {
      const name = target.value;
      this._emitLine(`frame.set("${name}", ${ids[i]}, true);`);
      this._emitLine(`if(frame.topLevel) { context.setVariable("${name}", ${ids[i]}); }`);
      if (name.charAt(0) !== '_') this._emitLine(`if(frame.topLevel) { context.addExport("${name}", ${ids[i]}); }`);
    });
  }

  compilePyRaw(node: any): void {
    this._emit(node.code);
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
      if (op.type === '==' || op.type === '!=' || op.type === '===' || op.type === '!==') {
        this._emit(op.type === '!=' || op.type === '!==' ? '!runtime.eq(' : 'runtime.eq(');
        this.compile(left, frame);
        this._emit(', ');
        this.compile(op.expr, frame);
        this._emit(')');
      } else {
        this._emit(`runtime.${COMPARE[op.type] ?? 'lt'}(`);
        this.compile(left, frame);
        this._emit(', ');
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
    if (node.spread) {
      // `**mapping`: its keys join the named arguments.
      this._emit('runtime.spreadKwargs(');
      super.compileDict(node, frame);
      this._emit(',');
      this.compile(node.spread, frame);
      this._emit(')');
    } else {
      super.compileDict(node, frame);
    }
    this._emit(')');
  }

  compilePySpread(node: any, frame: any): void {
    this._emit('...runtime.spreadArgs(');
    this.compile(node.target, frame);
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
    const name = this.nameOf(node.name);
    this._emit(`(lineno = ${node.lineno}, colno = ${node.colno}, runtime.callWrap(`);
    if (node.name instanceof nodes.LookupVal) {
      this._emit('runtime.methodLookup((');
      this._compileExpression(node.name.target, frame);
      this._emit('),');
      this._compileExpression(node.name.val, frame);
      this._emit(')');
    } else {
      this._compileExpression(node.name, frame);
    }
    this._emit(`, "${name}", context, `);
    this._compileAggregate(node.args, frame, '[', ']');
    // the call's position: a host call records where the template made it
    this._emit(`, ${node.lineno}, ${node.colno}))`);
  }

  /**
   * Jinja's `import` without context still sees the globals, which in Salt are the render
   * variables, with `tpldir`/`tplfile`/`tpldot` of the imported template (Salt's loader sets them).
   * With context it sees the importer's variables but its own assignments stay its own.
   */
  private importContext(node: any, id: string): string {
    return node.withContext ? 'context.getVariables(), runtime.importFrame(frame), ' : `runtime.globalsFor(context, ${id}.path), null, `;
  }

  /**
   * Imports (and includes) load synchronously and the rest of the template runs after them, not
   * inside their callback: nunjucks' callback style ran it inside the imported template's error handler, so
   * an error further down was reported in the imported file.
   */
  private importedExports(node: any, frame: any): { tmpl: string; exported: string } {
    const tmpl = this._tmpid();
    this._emit(`var ${tmpl} = runtime.syncCall(function(cb) { env.getTemplate(`);
    this._compileExpression(node.template, frame);
    this._emitLine(`, false, ${this._templateName()}, false, cb); });`);
    const exported = this._tmpid();
    this._emitLine(`var ${exported} = runtime.syncCall(function(cb) { ${tmpl}.getExported(${this.importContext(node, tmpl)}cb); });`);
    return { tmpl, exported };
  }

  compileInclude(node: any, frame: any): void {
    const tmpl = this._tmpid();
    this._emit(`var ${tmpl} = runtime.syncCall(function(cb) { env.getTemplate(`);
    this._compileExpression(node.template, frame);
    this._emitLine(`, false, ${this._templateName()}, ${node.ignoreMissing ? 'true' : 'false'}, cb); });`);
    this._emitLine(`${this.buffer} += runtime.syncCall(function(cb) { ${tmpl}.render(context.getVariables(), frame, cb); });`);
  }

  compileImport(node: any, frame: any): void {
    const target = node.target.value;
    const { exported } = this.importedExports(node, frame);
    frame.set(target, exported);
    if (frame.parent) this._emitLine(`frame.set("${target}", ${exported});`);
    else this._emitLine(`context.setVariable("${target}", ${exported});`);
  }

  compileFromImport(node: any, frame: any): void {
    const { exported } = this.importedExports(node, frame);
    for (const nameNode of node.names.children) {
      const pair = nameNode instanceof nodes.Pair;
      const name = pair ? nameNode.key.value : nameNode.value;
      const alias = pair ? nameNode.value.value : name;
      const id = this._tmpid();
      // Jinja binds a name the template does not export to an undefined value: an error only
      // where it is used (a formula may import a name it never reaches).
      this._emitLine(`var ${id} = Object.prototype.hasOwnProperty.call(${exported}, "${name}") ? ${exported}.${name} : undefined;`);
      frame.set(alias, id);
      if (frame.parent) this._emitLine(`frame.set("${alias}", ${id});`);
      else this._emitLine(`context.setVariable("${alias}", ${id});`);
    }
  }

  /** One loop iteration's scope: what `set` assigns there stays in that iteration, as in Jinja. */
  compilePyScope(node: any, frame: any): void {
    this._emitLine(`runtime.tick(${node.lineno}, ${node.colno});`);
    this._emitLine('frame = frame.push(true); try {');
    this.compile(node.body, frame.push(true));
    this._emitLine('} finally { frame = frame.pop(); }');
  }

  compileFor(node: any, frame: any): void {
    node.body = new PyScope(node.body.lineno, node.body.colno, node.body);
    if (!(node.name instanceof nodes.Array)) {
      // `for k in dict` iterates the keys, as in Python.
      const arr = node.arr;
      node.arr = new nodes.FunCall(
        arr.lineno,
        arr.colno,
        new nodes.Symbol(arr.lineno, arr.colno, '__brine_iter'),
        new nodes.NodeList(arr.lineno, arr.colno, [arr]),
      );
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
      // Jinja drops one trailing newline of every template (keep_trailing_newline=False).
      const body = src.endsWith('\r\n') ? src.slice(0, -2) : src.endsWith('\n') ? src.slice(0, -1) : src;
      const parser = new (DialectParser as any)(new (BalancedTokenizer as any)(body, {}));
      parser.extensions = extensions;
      parser.templateName = name;
      const ast = transformer.transform(parser.parseAsRoot(), [], name);
      const compiler = new (DialectCompiler as any)(name, false);
      compiler.compile(ast);
      code = compiler.getCode() as string;
      writeCompiled(name, src, code);
    }
    props = runCompiled(name, src, code);
  } catch (e: any) {
    // Parser errors carry 1-based positions already.
    if (e && typeof e === 'object' && !e.brineWhere) e.brineWhere = { file: name, line: e.lineno || undefined, column: e.colno || undefined };
    throw e;
  }
  const runtime = Object.create(dialectRuntime);
  runtime.handleError = (e: unknown, lineno: number, colno: number) => annotate(e, name, lineno, colno);
  runtime.callWrap = (fn: any, fnName: string, context: any, args: unknown[], lineno: number, colno: number) =>
    fn?.[HOST_FN] ? fn[HOST_FN](args, { file: name, line: lineno + 1, column: colno + 1 }) : dialectRuntime.callWrap(fn, fnName, context, args, lineno, colno);
  const out: Record<string, any> = {};
  for (const key of Object.keys(props)) {
    const fn = props[key];
    out[key] = (env: any, context: any, frame: any, _runtime: any, cb: any) => fn(env, context, frame, runtime, cb);
  }
  return out;
}
