/**
 * A Jinja environment over a file source: Salt's tags (`do`, `import_yaml`, `load_yaml`, ...),
 * filters, tests and globals; template paths resolved from the root of the source (or relative
 * to the current template with `./` and `../`). Independent of the compiler's StateTree so it
 * can serve `file.managed template: jinja` too.
 */
import { posix } from 'node:path';
import { loadYaml } from './yaml-load.js';
import { compileTemplate, nunjucks } from './dialect.js';
import { globalsFor, iterate, Namespace, withRenderDeadline } from './dialect-runtime.js';
import { keysOf, setKey } from '@brine/core';
import { parsedOnce } from './parse-cache.js';
import { FILTERS, TESTS } from './filters.js';
import { splitArgs, str } from './python.js';

/** Reads a template by its path from the root; undefined when there is no such file. */
export type TemplateReader = (path: string) => string | undefined;

/** A template failure with the file and position nunjucks reported. */
export class TemplateFailure extends Error {
  readonly file: string | undefined;
  readonly line: number | undefined;
  readonly column: number | undefined;
  /** A code of its own where the failure is not the template's text (render_timeout). */
  readonly code?: string;
  constructor(message: string, file: string | undefined, line: number | undefined, column: number | undefined, code?: string) {
    super(message);
    this.file = file;
    this.line = line;
    this.column = column;
    this.code = code;
    this.name = 'TemplateFailure';
  }
}

const RANGE_LIMIT = 100_000;

/** Compiled templates by name and text: the same file is parsed once per process. */
const compiled = new Map<string, Record<string, any>>();
const COMPILED_MAX = 4096;

/** Normalises a template name: no `salt://`, no leading `/`, no `.` segments. */
export function normalizeName(name: string): string {
  let n = name.startsWith('salt://') ? name.slice(7) : name;
  n = posix.normalize(n).replace(/^\/+/, '');
  return n === '.' ? '' : n;
}

function resolveRelative(parent: string, name: string): string {
  return normalizeName(posix.join(posix.dirname(parent), name));
}

function isRelative(name: string): boolean {
  return name.startsWith('./') || name.startsWith('../');
}

export interface JinjaEnvironment {
  /** Renders `text` as the template `name`; throws TemplateFailure. */
  render(name: string, text: string, vars: Record<string, unknown>): string;
  /** The underlying nunjucks environment (for adding filters or globals). */
  nunjucks: any;
}

function compiledFor(name: string, text: string, extensions: any[]): Record<string, any> {
  const key = name + '\0' + text;
  let props = compiled.get(key);
  if (!props) {
    props = compileTemplate(text, name, extensions);
    if (compiled.size >= COMPILED_MAX) compiled.clear();
    compiled.set(key, props);
  }
  return props;
}

function simpleTag(tags: string[], build: (parser: any, nodes: any, tok: any) => any) {
  return { tags, parse: (parser: any, nodes: any) => build(parser, nodes, parser.nextToken()) };
}

function internalFilter(nodes: any, tok: any, name: string, args: any[]): any {
  return new nodes.Filter(tok.lineno, tok.colno, new nodes.Symbol(tok.lineno, tok.colno, name), new nodes.NodeList(tok.lineno, tok.colno, args));
}

function expectAs(parser: any, tok: any): any {
  if (!parser.skipSymbol('as')) parser.fail(`${tok.value}: expected 'as <name>'`, tok.lineno, tok.colno);
  const target = parser.parsePrimary();
  if (!(target instanceof nunjucks.nodes.Symbol)) parser.fail(`${tok.value}: expected a variable name after 'as'`, tok.lineno, tok.colno);
  return target;
}

/** `{% do expr %}`, `{% import_yaml 'x' as y %}`, `{% load_yaml as y %}...{% endload %}` and kin. */
function saltExtensions(): any[] {
  const doTag = simpleTag(['do'], (parser, nodes, tok) => {
    const expr = parser.parseExpression();
    parser.advanceAfterBlockEnd(tok.value);
    return new nodes.Output(tok.lineno, tok.colno, [internalFilter(nodes, tok, '__brine_do', [expr])]);
  });
  const importTag = simpleTag(['import_yaml', 'import_json', 'import_text'], (parser, nodes, tok) => {
    const pathExpr = parser.parseExpression();
    const target = expectAs(parser, tok);
    const withContext = parser.parseWithContext() === true;
    parser.advanceAfterBlockEnd(tok.value);
    const value = internalFilter(nodes, tok, '__brine_import', [
      pathExpr,
      new nodes.Literal(tok.lineno, tok.colno, tok.value.slice(7)),
      new nodes.Literal(tok.lineno, tok.colno, parser.templateName ?? ''),
      new nodes.Literal(tok.lineno, tok.colno, withContext),
    ]);
    return new nodes.Set(tok.lineno, tok.colno, [target], value);
  });
  const loadTag = simpleTag(['load_yaml', 'load_json', 'load_text'], (parser, nodes, tok) => {
    const target = expectAs(parser, tok);
    parser.advanceAfterBlockEnd(tok.value);
    const body = parser.parseUntilBlocks('endload');
    parser.advanceAfterBlockEnd();
    const value = internalFilter(nodes, tok, '__brine_load', [
      new nodes.Capture(tok.lineno, tok.colno, body),
      new nodes.Literal(tok.lineno, tok.colno, tok.value.slice(5)),
    ]);
    return new nodes.Set(tok.lineno, tok.colno, [target], value);
  });
  return [doTag, importTag, loadTag];
}

/** The context key holding the render's variables, which Salt's templates see as globals. */
export const GLOBALS = '__brine_globals';

function hasJinja(text: string): boolean {
  return text.includes('{{') || text.includes('{%') || text.includes('{#');
}

function parseAs(kind: string, text: string, what: string): unknown {
  try {
    if (kind === 'yaml') {
      const res = loadYaml(text);
      if (res.error) throw new Error(`${res.error.message}${res.error.line ? ` (line ${res.error.line})` : ''}`);
      return res.value;
    }
    if (kind === 'json') return JSON.parse(text);
    return text;
  } catch (e) {
    throw new Error(`cannot load ${kind} from ${what}: ${(e as Error).message.split('\n')[0]}`);
  }
}

/** Builds an environment; create one per file source and reuse it for every render. */
export function createJinjaEnvironment(source: TemplateReader): JinjaEnvironment {
  const extensions = saltExtensions();
  // The source is a snapshot (one compile's tree): a file many SLS import is read once. A
  // missing file is asked again: a file template's reader fetches it for the next round.
  const texts = new Map<string, string>();
  const read = (path: string): string | undefined => {
    let text = texts.get(path);
    if (text === undefined) {
      text = source(path);
      if (text !== undefined) texts.set(path, text);
    }
    return text;
  };
  const loader = {
    cache: {},
    isRelative,
    resolve: resolveRelative,
    getSource(name: string) {
      const path = normalizeName(name);
      const text = read(path);
      if (text === undefined) return null;
      return { src: { type: 'code', obj: compiledFor(path, text, extensions) }, path, noCache: true };
    },
  };
  const env = new nunjucks.Environment(loader, { autoescape: false, dev: true, throwOnUndefined: false });
  env.extensionsList = extensions;
  // `x | constructor`, `x is toString`, `{{ hasOwnProperty }}` find nothing (sandbox.ts)
  for (const table of [env.filters, env.tests, env.globals]) Object.setPrototypeOf(table, null);
  for (const [name, fn] of Object.entries(FILTERS)) env.addFilter(name, fn);
  for (const [name, fn] of Object.entries(TESTS)) env.addTest(name, fn);
  env.addFilter('__brine_do', () => '');
  // Salt's import_* tags are `{% import %}` plus a load: the file is a template first.
  env.addFilter('__brine_import', function (this: any, path: unknown, kind: string, from: string, withContext: boolean) {
    const p = str(path);
    const name = isRelative(p) ? resolveRelative(from, p) : normalizeName(p);
    let text = read(name);
    if (text === undefined) throw new Error(`import_${kind}: template '${p}' not found`);
    if (hasJinja(text)) {
      const vars = withContext ? this.getVariables() : globalsFor(this.ctx, name);
      text = new nunjucks.Template({ type: 'code', obj: compiledFor(name, text, extensions) }, env, name).render(vars) as string;
    }
    const loaded = text;
    return kind === 'text' ? loaded : parsedOnce(kind, loaded, () => parseAs(kind, loaded, name));
  });
  env.addFilter('__brine_load', (raw: unknown, kind: string) => {
    const text = str(raw);
    return kind === 'text' ? text : parsedOnce(kind, text, () => parseAs(kind, text, `load_${kind} block`));
  });
  env.addGlobal('__brine_iter', iterate);
  env.addGlobal('namespace', (...raw: unknown[]) => {
    const { args, kwargs } = splitArgs(raw);
    const init: Record<string, unknown> = {};
    for (const a of args) if (a && typeof a === 'object' && !Array.isArray(a)) Object.assign(init, a);
    return new Namespace({ ...init, ...kwargs });
  });
  env.addGlobal('range', (...args: number[]) => {
    const [start, stop, step] = args.length === 1 ? [0, args[0], 1] : [args[0], args[1], args[2] ?? 1];
    if (step === 0) throw new Error('range() arg 3 must not be zero');
    const count = Math.max(0, Math.ceil((stop - start) / step));
    if (count > RANGE_LIMIT) throw new Error(`range too big, maximum size for range is ${RANGE_LIMIT}`);
    return Array.from({ length: count }, (_, i) => start + i * step);
  });
  env.addGlobal('raise', (msg: unknown) => {
    throw new Error(str(msg));
  });
  env.addGlobal('odict', (...raw: unknown[]) => {
    const { args, kwargs } = splitArgs(raw);
    const out: Record<string, unknown> = {};
    for (const a of args) {
      if (Array.isArray(a)) for (const pair of a) setKey(out, str((pair as unknown[])[0]), (pair as unknown[])[1]);
      else if (a && typeof a === 'object') for (const k of keysOf(a)) setKey(out, k, (a as Record<string, unknown>)[k]);
    }
    for (const k of Object.keys(kwargs)) setKey(out, k, kwargs[k]);
    return out;
  });
  env.addGlobal('dict', (...raw: unknown[]) => {
    const out: Record<string, unknown> = {};
    for (const a of raw) if (a && typeof a === 'object') for (const k of keysOf(a)) if (k !== '__keywords') setKey(out, k, (a as Record<string, unknown>)[k]);
    return out;
  });

  return {
    nunjucks: env,
    render(name: string, text: string, vars: Record<string, unknown>): string {
      try {
        const tmpl = new nunjucks.Template({ type: 'code', obj: compiledFor(name, text, extensions) }, env, name);
        // Salt makes every render variable a global too: imports without context see them.
        const globals: Record<string, unknown> = { ...vars };
        globals[GLOBALS] = globals;
        const out = withRenderDeadline(() => tmpl.render(globals) as string);
        // Salt puts back the newline Jinja took from the end of the file.
        return text.endsWith('\r\n') ? out + '\r\n' : text.endsWith('\n') ? out + '\n' : out;
      } catch (e) {
        throw toFailure(e, name);
      }
    },
  };
}

/** Turns what nunjucks threw into a TemplateFailure naming the innermost template. */
function toFailure(e: unknown, name: string): TemplateFailure {
  // The deepest annotated error is the one the innermost template saw.
  let err = e as any;
  for (let cur = err; cur && typeof cur === 'object'; cur = cur.cause) if (cur.brineWhere) err = cur;
  const where = err?.brineWhere || {};
  let message = String(err?.message ?? err);
  // nunjucks prefixes "(path) [Line x, Column y]" lines; keep the last, the actual complaint.
  const lines = message
    .split('\n')
    .map((l: string) => l.trim())
    .filter((l: string) => l !== '');
  message = (lines[lines.length - 1] ?? message).replace(/^(Template render error|Error|TypeError|ReferenceError|RangeError): /, '');
  return new TemplateFailure(message, where.file ?? name, where.line, where.column, err?.brineCode);
}
