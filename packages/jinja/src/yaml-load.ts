/**
 * YAML with the semantics Salt users get (PyYAML's YAML 1.1 safe loader plus Salt's tweaks):
 * yes/no/on/off are booleans (y/n are not), `0644` is the decimal 644 (Salt strips the leading
 * zeros so that modes read naturally), `1e3` is a string, timestamps stay strings, duplicate keys
 * are an error. Maps become plain objects in document order; positions of the keys an SLS file
 * is made of are recorded.
 */
import type { Document, LineCounter, Node, ParseOptions, DocumentOptions, SchemaOptions, ToJSOptions } from 'yaml';
import { forgetAtSnapshotRestore, rememberKeyOrder, yamlLib, type SourcePos } from '@brine/core';
import type { IdPositions, PositionMap } from './positions.js';
import { reindentFlow } from './yaml-flow.js';
import { pyAnchorNames } from './yaml-anchors.js';
import { appendFileSync } from 'node:fs';
import { declined, fastYaml, saltOctal, YAML_EXP, YAML_FALSE, YAML_FLOAT, YAML_INT, YAML_TRUE, type FastPositions, type KeyPositions } from './yaml-fast.js';

type TagDef = { tag: string; format?: string; test?: RegExp; default?: boolean | 'key'; resolve?: unknown };

const INT = 'tag:yaml.org,2002:int';
const FLOAT = 'tag:yaml.org,2002:float';
const BOOL = 'tag:yaml.org,2002:bool';

function saltTags(tags: unknown[]): unknown[] {
  const out: unknown[] = [];
  for (const t of tags as TagDef[]) {
    if (t.tag === 'tag:yaml.org,2002:timestamp' && t.default) continue;
    if (t.tag === BOOL && t.test) {
      const isTrue = t.test.test('true');
      out.push({ ...t, test: isTrue ? YAML_TRUE : YAML_FALSE });
    } else if (t.tag === INT && t.format === 'OCT') {
      out.push({ ...t, resolve: (src: string) => saltOctal(src) });
    } else if (t.tag === INT && t.format === undefined) {
      out.push({ ...t, test: YAML_INT });
    } else if (t.tag === FLOAT && t.format === 'EXP') {
      out.push({ ...t, test: YAML_EXP });
    } else if (t.tag === FLOAT && t.format === undefined && t.test?.test('1.5')) {
      out.push({ ...t, test: YAML_FLOAT });
    } else {
      out.push(t);
    }
  }
  return out;
}

const OPTIONS: ParseOptions & DocumentOptions & SchemaOptions = {
  version: '1.1',
  customTags: saltTags as SchemaOptions['customTags'],
  uniqueKeys: true,
  merge: true,
  keepSourceTokens: false,
};

const TO_JS: ToJSOptions = { maxAliasCount: 10_000 };

export interface YamlError {
  message: string;
  line?: number;
  column?: number;
}

export interface YamlResult {
  value: unknown;
  error?: YamlError;
  doc?: Document;
  /** Line positions when the full parser read the text. */
  lineCounter?: LineCounter;
  /**
   * Key positions when the fast path parsed the text: those of the top-level keys only (a file's
   * IDs). The others are found again from `fastSource` when a diagnostic asks (collectPositions).
   */
  fast?: FastPositions;
  /** The text the fast path read. */
  fastSource?: string;
}

function errorText(text: string, code: string, message: string, offset: number): string {
  if (code === 'DUPLICATE_KEY') {
    const key = /^[^:\n]*/
      .exec(text.slice(offset))?.[0]
      .trim()
      .replace(/^["']|["']$/g, '');
    return `found conflicting ID '${key}' (a key appears twice in the same mapping)`;
  }
  return message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
}

/** A file to append each text the loader reads to, with why the fast path left it (a JSON line each). */
let DEBUG = process.env.BRINE_YAML_DEBUG;
forgetAtSnapshotRestore(() => (DEBUG = process.env.BRINE_YAML_DEBUG));

function debugYaml(text: string, fast: boolean): void {
  appendFileSync(DEBUG!, JSON.stringify({ fast, why: fast ? undefined : declined.why, line: fast ? undefined : declined.line, text }) + '\n');
}

/** Parses one YAML document; the first error is reported with its 1-based line and column. */
export function loadYaml(source: string, options: { fast?: boolean; yamlex?: boolean } = {}): YamlResult {
  // the yaml library (about 70 modules) is loaded only for the texts the fast path leaves; that
  // path reads no anchor or alias, so a text it takes has none for pyAnchorNames to rename
  // most texts' positions are never read, and keeping them all was a third of the work: the
  // top-level keys' only, the rest when asked
  const quick = options.fast === false || options.yamlex ? undefined : fastYaml(source, 0);
  if (DEBUG && options.fast !== false && !options.yamlex) debugYaml(source, quick !== undefined);
  if (quick) return { value: quick.value, fast: quick.positions, fastSource: source };
  const text = pyAnchorNames(source);
  const lineCounter = new (yamlLib().LineCounter)();
  const doc = yamlLib().parseDocument(text, { ...OPTIONS, lineCounter });
  if (doc.errors.length > 0) {
    // PyYAML accepts flow collections and quoted scalars continued at any indentation; see yaml-flow.ts.
    const moved = reindentFlow(text);
    if (moved !== undefined) {
      const lc = new (yamlLib().LineCounter)();
      const retry = yamlLib().parseDocument(moved, { ...OPTIONS, lineCounter: lc });
      if (retry.errors.length === 0) return finish(retry, lc, moved);
    }
  }
  const err = doc.errors[0];
  if (err) {
    const pos = err.linePos?.[0];
    return {
      value: undefined,
      lineCounter,
      error: { message: errorText(text, err.code, err.message, err.pos[0]), line: pos?.line, column: pos?.col },
    };
  }
  if (options.yamlex) yamlexTags(doc);
  return finish(doc, lineCounter, text);
}

/**
 * Salt's yamlex renderer: `!aggregate` makes a scalar a one-item list and leaves a list or a
 * mapping as it is; `!reset` leaves its value as it is. (Aggregating repeated keys is not done.)
 */
function yamlexTags(doc: Document): void {
  doc.warnings = doc.warnings.filter((w) => w.code !== 'TAG_RESOLVE_FAILED');
  yamlLib().visit(doc, {
    Node(_key, node) {
      if (node.tag !== '!aggregate' && node.tag !== '!reset') return undefined;
      const tag = node.tag;
      node.tag = undefined;
      // the scalar read again without its tag: `!aggregate 1` is the number 1 in a list
      if (tag === '!aggregate' && yamlLib().isScalar(node)) return doc.createNode([yamlLib().parseDocument(String(node.source), OPTIONS).toJS(TO_JS)]);
      return undefined;
    },
  });
}

/** A mapping or list used as a key: PyYAML cannot hash it, Salt's loader refuses it. */
function collectionKey(doc: Document): Node | undefined {
  let found: Node | undefined;
  yamlLib().visit(doc, {
    Pair(_key, pair) {
      if (yamlLib().isCollection(pair.key)) {
        found = pair.key;
        return yamlLib().visit.BREAK;
      }
      return undefined;
    },
  });
  return found;
}

/**
 * PyYAML ends a block scalar that runs to the end of an input without a final newline without
 * one; the `yaml` library adds it.
 */
function trimFinalBlockScalar(doc: Document, text: string): void {
  if (text.endsWith('\n') || text.endsWith('\r')) return;
  yamlLib().visit(doc, {
    Scalar(_key, node) {
      if ((node.type === 'BLOCK_LITERAL' || node.type === 'BLOCK_FOLDED') && (node.range?.[1] ?? 0) >= text.length && typeof node.value === 'string') {
        if (node.value.endsWith('\n')) node.value = node.value.slice(0, -1);
        return yamlLib().visit.BREAK;
      }
      return undefined;
    },
  });
}

/**
 * The `yaml` library builds plain objects, where integer-like keys jump to the front; record
 * each mapping's document order where that happened (see @brine/core key-order).
 */
function keepMapOrder(node: unknown, value: unknown, seen: Set<unknown>): void {
  if (value === null || typeof value !== 'object' || seen.has(node)) return;
  seen.add(node);
  if (yamlLib().isMap(node)) {
    const keys: string[] = [];
    for (const pair of node.items) {
      if (!yamlLib().isScalar(pair.key) || pair.key.value === '<<') return;
      const name = String(pair.key.value);
      keys.push(name);
      keepMapOrder(pair.value, (value as Record<string, unknown>)[name], seen);
    }
    rememberKeyOrder(value, keys);
  } else if (yamlLib().isSeq(node) && Array.isArray(value)) {
    node.items.forEach((item, i) => keepMapOrder(item, value[i], seen));
  }
}

function finish(doc: Document, lineCounter: LineCounter, text: string): YamlResult {
  trimFinalBlockScalar(doc, text);
  const bad = collectionKey(doc);
  if (bad) {
    const at = lineCounter.linePos(bad.range?.[0] ?? 0);
    return {
      value: undefined,
      lineCounter,
      error: { message: 'found unacceptable key (a mapping or a list cannot be a mapping key)', line: at.line, column: at.col },
    };
  }
  try {
    const value = doc.toJS(TO_JS) ?? null;
    keepMapOrder(doc.contents, value, new Set());
    return { value, doc, lineCounter };
  } catch (e) {
    return { value: undefined, lineCounter, error: { message: (e as Error).message } };
  }
}

/** The top-level keys in the order written (objects list integer-like keys first). */
export function topLevelKeyOrder(res: YamlResult): string[] | undefined {
  if (res.fast) {
    const root = res.value !== null && typeof res.value === 'object' ? res.fast.get(res.value) : undefined;
    return root ? (root.filter((_, i) => i % 3 === 0) as string[]) : undefined;
  }
  const contents = res.doc?.contents;
  if (!yamlLib().isMap(contents)) return undefined;
  return contents.items.map((p) => keyText(p.key) ?? String(p.key));
}

function keyText(node: unknown): string | undefined {
  if (yamlLib().isScalar(node)) return node.value === null ? '' : String(node.value);
  return undefined;
}

/**
 * Positions of the top-level keys, the state declarations under each and the argument keys in
 * each declaration's list. `lineMap` turns a rendered line into a source line.
 */
export function collectPositions(res: YamlResult, file: string, lineMap?: (line: number) => number): PositionMap {
  const positions: PositionMap = { file, ids: {} };
  if (res.fast) return fastPositions(res.value, res.fast, res.fastSource, file, lineMap);
  const contents = res.doc?.contents;
  if (!yamlLib().isMap(contents)) return positions;
  const pos = (node: { range?: [number, number, number] | null } | null | undefined) => {
    const at = res.lineCounter!.linePos(node?.range?.[0] ?? 0);
    return { file, line: lineMap ? lineMap(at.line) : at.line, column: at.col };
  };
  for (const pair of contents.items) {
    const id = keyText(pair.key);
    if (id === undefined) continue;
    const entry: IdPositions = { pos: pos(pair.key as never), states: {}, args: {} };
    positions.ids[id] = entry;
    if (!yamlLib().isMap(pair.value)) continue;
    for (const decl of pair.value.items) {
      const state = keyText(decl.key);
      if (state === undefined) continue;
      entry.states[state] = pos(decl.key as never);
      if (!yamlLib().isSeq(decl.value)) continue;
      for (const item of decl.value.items) {
        if (!yamlLib().isMap(item)) continue;
        for (const arg of item.items) {
          const name = keyText(arg.key);
          if (name !== undefined && !(`${state}/${name}` in entry.args)) entry.args[`${state}/${name}`] = pos(arg.key as never);
        }
      }
    }
  }
  return positions;
}

/** Where `key` is in a map's flat key positions (key, line, column, ...); -1 when not there. */
function keyAt(pos: KeyPositions | undefined, key: string): number {
  if (pos) for (let i = 0; i < pos.length; i += 3) if (pos[i] === key) return i;
  return -1;
}

/** One text's positions, all of them, parsed again on the first read (shared by its IDs). */
class FastFile {
  readonly #source: string | undefined;
  readonly #known: { value: unknown; positions: FastPositions } | undefined;
  #all: { value: unknown; positions: FastPositions } | undefined;
  readonly at: (pos: KeyPositions, i: number) => SourcePos;
  readonly path: string;
  constructor(path: string, source: string | undefined, known: { value: unknown; positions: FastPositions }, at: (pos: KeyPositions, i: number) => SourcePos) {
    this.path = path;
    this.#source = source;
    // the value first parsed only where there is no text to parse again: every ID's origin keeps
    // this, and the value is the whole file's (its maps and lists, copied by each young GC)
    this.#known = source === undefined ? known : undefined;
    this.at = at;
  }
  /** The text parsed with every position kept (what it was parsed to: later stages change the first value). */
  all(): { value: unknown; positions: FastPositions } {
    // a text the fast path took once it takes again, to the same value (where positions are kept changes neither)
    this.#all ??= (this.#source === undefined ? this.#known : fastYaml(this.#source)) ?? { value: undefined, positions: new Map() };
    return this.#all;
  }
}

/**
 * An ID's positions as the fast path found them. Its states' and arguments' positions are worked
 * out when first read: only diagnostics read them, and made for every ID they were two tables and
 * an entry per argument (about 10 MB and 15 ms for a 10,000-state tree).
 */
class FastIdPositions implements IdPositions {
  readonly #id: string;
  readonly #file: FastFile;
  // the ID's own line and column, its position made when read: an object per ID was kept (and
  // copied by every young GC) for the diagnostics that read few
  readonly #line: number;
  readonly #column: number;
  #states: Record<string, SourcePos> | undefined;
  #args: Record<string, SourcePos> | undefined;
  constructor(line: number, column: number, id: string, file: FastFile) {
    this.#line = line;
    this.#column = column;
    this.#id = id;
    this.#file = file;
  }
  get pos(): SourcePos {
    return { file: this.#file.path, line: this.#line, column: this.#column };
  }
  get states(): Record<string, SourcePos> {
    return (this.#states ??= this.#fill().states);
  }
  get args(): Record<string, SourcePos> {
    return (this.#args ??= this.#fill().args);
  }
  #fill(): { states: Record<string, SourcePos>; args: Record<string, SourcePos> } {
    const states: Record<string, SourcePos> = {};
    const args: Record<string, SourcePos> = {};
    this.#states = states;
    this.#args = args;
    const file = this.#file;
    const { value, positions } = file.all();
    const decl = isObj(value) ? value[this.#id] : undefined;
    if (!isObj(decl)) return { states, args };
    // declarations and argument maps are small: a scan each, in Object.keys order
    const declPos = positions.get(decl);
    for (const state of Object.keys(decl)) {
      const s = keyAt(declPos, state);
      if (s >= 0) states[state] = file.at(declPos!, s);
      const list = decl[state];
      if (!Array.isArray(list)) continue;
      for (const item of list) {
        if (!isObj(item)) continue;
        const itemPos = positions.get(item);
        for (const arg of Object.keys(item)) {
          const a = keyAt(itemPos, arg);
          const key = `${state}/${arg}`;
          if (a >= 0 && !(key in args)) args[key] = file.at(itemPos!, a);
        }
      }
    }
    return { states, args };
  }
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function fastPositions(value: unknown, fast: FastPositions, source: string | undefined, file: string, lineMap?: (line: number) => number): PositionMap {
  const positions: PositionMap = { file, ids: {} };
  if (!isObj(value)) return positions;
  const at = (pos: KeyPositions, i: number): SourcePos => {
    const line = pos[i + 1] as number;
    return { file, line: lineMap ? lineMap(line) : line, column: pos[i + 2] as number };
  };
  const top = fast.get(value);
  if (!top) return positions;
  const shared = new FastFile(file, source, { value, positions: fast }, at);
  // the IDs in document order: positions.ids lists them as Object.keys(value) would (integer-like first)
  for (let t = 0; t < top.length; t += 3) {
    const id = top[t] as string;
    const line = top[t + 1] as number;
    positions.ids[id] = new FastIdPositions(lineMap ? lineMap(line) : line, top[t + 2] as number, id, shared);
  }
  return positions;
}
