import { BlockList, isIP } from 'node:net';
import { BrineError, packageRequire, type Diagnostic, type Grains, type Pillar } from '@brine/core';
import type { RE2JS } from 're2js';
import { compilerErrors } from './errors.js';
import { globMatch } from './glob.js';

/**
 * Minion targeting, shared by top files and the master: glob, pcre, list, grain, grain_pcre,
 * pillar, pillar_pcre, ipcidr, compound and nodegroups, with Salt's semantics.
 */
export type TargetType = 'glob' | 'pcre' | 'list' | 'grain' | 'grain_pcre' | 'pillar' | 'pillar_pcre' | 'ipcidr' | 'compound' | 'nodegroup';

export const TARGET_TYPES: readonly TargetType[] = ['glob', 'pcre', 'list', 'grain', 'grain_pcre', 'pillar', 'pillar_pcre', 'ipcidr', 'compound', 'nodegroup'];

export interface MinionFacts {
  id: string;
  grains: Grains;
  pillar?: Pillar;
}

export interface TargetOptions {
  nodegroups?: Record<string, string | string[]>;
  /** Separator of nested keys in grain and pillar targets; `:` like Salt. */
  delimiter?: string;
}

const COMPOUND_PREFIX: Record<string, TargetType> = {
  G: 'grain',
  E: 'pcre',
  P: 'grain_pcre',
  L: 'list',
  I: 'pillar',
  J: 'pillar_pcre',
  S: 'ipcidr',
  N: 'nodegroup',
};

function bad(target: string, type: string, detail: string): BrineError {
  return compilerErrors.make('BRINE_ERR_COMPILE_BAD_TARGET', { target, type, detail });
}

/** RE2, loaded on the first pcre target: most processes (`brine local`, a glob top) never need it. */
let re2: typeof RE2JS | undefined;
function engine(): typeof RE2JS {
  re2 ??= (packageRequire('compiler')('re2js') as { RE2JS: typeof RE2JS }).RE2JS;
  return re2;
}

/** Compiled target patterns; a handful in use, so a full cache is simply emptied. */
const reCache = new Map<string, RE2JS>();
const RE_CACHE_MAX = 512;

/**
 * Python `re.match` (anchored at the start only) on RE2, a linear-time engine: a pattern over
 * data a minion reports (grains, pillar rendered from them) can never backtrack for ever. What
 * RE2 cannot express (backreferences, lookaround) is refused rather than run on a backtracking
 * engine.
 */
function pyMatch(pattern: string, value: string, target: string, type: string): boolean {
  let re = reCache.get(pattern);
  if (!re) {
    try {
      re = engine().compile(`^(?:${pattern})`);
    } catch (e) {
      throw bad(target, type, `${regexProblem(pattern)}: ${(e as Error).message.replace(/^error parsing regexp: /, '')}`);
    }
    if (reCache.size >= RE_CACHE_MAX) reCache.clear();
    reCache.set(pattern, re);
  }
  return re.test(value);
}

/** Why RE2 refused a pattern: unsupported when a backtracking engine would take it, else invalid. */
function regexProblem(pattern: string): string {
  try {
    new RegExp(pattern);
  } catch {
    return `invalid regular expression '${pattern}'`;
  }
  return `regular expression '${pattern}' needs backtracking (backreferences and lookaround are not supported: targets run on a linear-time engine)`;
}

/** How Python prints a scalar: what Salt compares grain values against. */
function pyStr(v: unknown): string {
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (v === null || v === undefined) return 'None';
  return String(v);
}

type ValueMatcher = (value: string) => boolean;

/** Does `pattern` match `value`, where value may be a scalar, a list or a dict (keys match). */
function matchValue(value: unknown, match: ValueMatcher): boolean {
  if (Array.isArray(value)) return value.some((v) => matchValue(v, match));
  if (value !== null && typeof value === 'object') return Object.keys(value).some((k) => match(k));
  return match(pyStr(value));
}

/**
 * Salt's subdict match: `a:b:pattern` walks `data.a.b` and matches the rest; because keys and
 * patterns may themselves contain the delimiter, every split point is tried.
 */
function subdictMatch(data: unknown, expr: string, delimiter: string, match: (pattern: string) => ValueMatcher): boolean {
  const parts = expr.split(delimiter);
  if (parts.length < 2) return false;
  for (let i = 1; i < parts.length; i++) {
    const keyPath = parts.slice(0, i);
    const pattern = parts.slice(i).join(delimiter);
    if (walkAndMatch(data, keyPath, pattern, delimiter, match)) return true;
  }
  return false;
}

function walkAndMatch(data: unknown, keyPath: string[], pattern: string, delimiter: string, match: (pattern: string) => ValueMatcher): boolean {
  if (keyPath.length === 0) return matchValue(data, match(pattern));
  if (Array.isArray(data)) {
    return data.some((item) => walkAndMatch(item, keyPath, pattern, delimiter, match));
  }
  if (data === null || typeof data !== 'object') return false;
  const obj = data as Record<string, unknown>;
  // Keys containing the delimiter: try the longest joined key first.
  for (let n = keyPath.length; n >= 1; n--) {
    const key = keyPath.slice(0, n).join(delimiter);
    if (Object.hasOwn(obj, key)) {
      if (walkAndMatch(obj[key], keyPath.slice(n), pattern, delimiter, match)) return true;
    }
  }
  return false;
}

function ipList(grains: Grains): string[] {
  const out: string[] = [];
  for (const key of ['ipv4', 'ipv6']) {
    const v = grains[key];
    if (Array.isArray(v)) for (const ip of v) if (typeof ip === 'string') out.push(ip);
  }
  return out;
}

function matchCidr(tgt: string, grains: Grains): boolean {
  const [addr, prefixText] = tgt.split('/');
  const family = isIP(addr ?? '');
  if (!addr || family === 0) throw bad(tgt, 'ipcidr', 'not an IP address or CIDR network');
  const type = family === 4 ? 'ipv4' : 'ipv6';
  const list = new BlockList();
  if (prefixText === undefined) {
    list.addAddress(addr, type);
  } else {
    const prefix = Number(prefixText);
    if (!Number.isInteger(prefix) || prefix < 0 || prefix > (family === 4 ? 32 : 128)) {
      throw bad(tgt, 'ipcidr', `bad prefix length '${prefixText}'`);
    }
    list.addSubnet(addr, prefix, type);
  }
  return ipList(grains).some((ip) => isIP(ip) === family && list.check(ip, type));
}

/** Expands a nodegroup to a compound expression; nested N@ references are expanded too. */
export function expandNodegroup(name: string, opts: TargetOptions, seen: string[] = []): string {
  if (seen.includes(name)) {
    throw bad(name, 'nodegroup', `nodegroup cycle: ${[...seen, name].join(' -> ')}`);
  }
  const def = opts.nodegroups?.[name];
  if (def === undefined) throw bad(name, 'nodegroup', `no nodegroup named '${name}' in the master config`);
  let expr: string;
  if (Array.isArray(def)) {
    const isPlainIds = def.every((w) => !/^(and|or|not|\(|\))$/.test(w) && !w.includes('@'));
    expr = isPlainIds ? `L@${def.join(',')}` : def.join(' ');
  } else {
    expr = def;
  }
  return expr
    .split(/\s+/)
    .filter(Boolean)
    .map((word) => {
      const m = /^(\(*)N@([^)]+)(\)*)$/.exec(word);
      if (!m) return word;
      return `${m[1]}( ${expandNodegroup(m[2]!, opts, [...seen, name])} )${m[3]}`;
    })
    .join(' ');
}

type Token = { kind: 'and' | 'or' | 'not' | '(' | ')' } | { kind: 'term'; text: string };

function tokenize(expr: string): Token[] {
  const tokens: Token[] = [];
  for (let word of expr.split(/\s+/).filter(Boolean)) {
    while (word.startsWith('(')) {
      tokens.push({ kind: '(' });
      word = word.slice(1);
    }
    // A trailing ')' closes a group only when the word itself does not open it (E@(a|b)).
    let closing = 0;
    const count = (w: string, c: string) => w.split(c).length - 1;
    while (word.endsWith(')') && count(word, ')') > count(word, '(')) {
      closing++;
      word = word.slice(0, -1);
    }
    if (word === 'and' || word === 'or' || word === 'not') tokens.push({ kind: word });
    else if (word) tokens.push({ kind: 'term', text: word });
    for (let i = 0; i < closing; i++) tokens.push({ kind: ')' });
  }
  return tokens;
}

/** A compound's term with its engine: what evalCompound asks of the minion. */
type Leaf = (tgt: string, type: TargetType, opts: TargetOptions) => boolean;

/**
 * Recursive descent over `or` < `and` < `not` < term, like Python's boolean precedence. Every
 * term is evaluated (both sides of `and`/`or`), so a leaf sees each term of the expression.
 */
function evalCompound(expr: string, leaf: Leaf, opts: TargetOptions): boolean {
  const tokens = tokenize(expr);
  let pos = 0;
  const fail = (detail: string) => bad(expr, 'compound', detail);
  const parseOr = (): boolean => {
    let value = parseAnd();
    while (tokens[pos]?.kind === 'or') {
      pos++;
      const right = parseAnd();
      value = value || right;
    }
    return value;
  };
  const parseAnd = (): boolean => {
    let value = parseNot();
    // Salt reads `a not b` as `a and not b`.
    while (tokens[pos]?.kind === 'and' || tokens[pos]?.kind === 'not') {
      if (tokens[pos]!.kind === 'and') pos++;
      const right = parseNot();
      value = value && right;
    }
    return value;
  };
  const parseNot = (): boolean => {
    if (tokens[pos]?.kind === 'not') {
      pos++;
      return !parseNot();
    }
    return parseAtom();
  };
  const parseAtom = (): boolean => {
    const tok = tokens[pos];
    if (!tok) throw fail('expression ends where a target was expected');
    if (tok.kind === '(') {
      pos++;
      const v = parseOr();
      if (tokens[pos]?.kind !== ')') throw fail("missing ')'");
      pos++;
      return v;
    }
    if (tok.kind !== 'term') throw fail(`unexpected '${tok.kind}' where a target was expected`);
    pos++;
    // Salt's engines; G, P, I and J take an optional one-character delimiter (G|@os|Debian).
    // Any other word, `X@y` included, is a glob.
    const m = /^(?:([GPIJ])(.)@|([GPIJLNSER])@)([\s\S]*)$/.exec(tok.text);
    if (!m) return leaf(tok.text, 'glob', opts);
    const letter = (m[1] ?? m[3])!;
    const type = COMPOUND_PREFIX[letter];
    if (!type) throw fail(`target engine '${letter}@' is not available`);
    if (!m[4]) throw fail(`'${letter}@' with nothing after it`);
    return leaf(m[4], type, m[2] ? { ...opts, delimiter: m[2] } : opts);
  };
  if (tokens.length === 0) throw fail('empty compound expression');
  const value = parseOr();
  if (pos < tokens.length) {
    const tok = tokens[pos]!;
    throw fail(`unexpected '${tok.kind === 'term' ? tok.text : tok.kind}' (missing 'and'/'or'?)`);
  }
  return value;
}

export function matchTarget(tgt: string | string[], type: TargetType, minion: MinionFacts, opts: TargetOptions = {}): boolean {
  const delimiter = opts.delimiter ?? ':';
  const leaf: Leaf = (t, ty, o) => matchTarget(t, ty, minion, o);
  if (type === 'list') {
    const ids = Array.isArray(tgt) ? tgt : tgt.split(',').map((s) => s.trim());
    return ids.includes(minion.id);
  }
  if (Array.isArray(tgt)) {
    if (type === 'compound') return evalCompound(tgt.join(' '), leaf, opts);
    throw bad(tgt.join(','), type, 'a list target needs the list type (-L)');
  }
  switch (type) {
    case 'glob':
      return globMatch(minion.id, tgt);
    case 'pcre':
      return pyMatch(tgt, minion.id, tgt, type);
    case 'grain':
    case 'pillar': {
      if (!tgt.includes(delimiter)) throw bad(tgt, type, `expected key${delimiter}value`);
      const data = type === 'grain' ? minion.grains : (minion.pillar ?? {});
      return subdictMatch(data, tgt, delimiter, (p) => (v) => globMatch(v, p));
    }
    case 'grain_pcre':
    case 'pillar_pcre': {
      if (!tgt.includes(delimiter)) throw bad(tgt, type, `expected key${delimiter}regex`);
      const data = type === 'grain_pcre' ? minion.grains : (minion.pillar ?? {});
      return subdictMatch(data, tgt, delimiter, (p) => (v) => pyMatch(p.toLowerCase(), v.toLowerCase(), tgt, type));
    }
    case 'ipcidr':
      return matchCidr(tgt, minion.grains);
    case 'compound':
      return evalCompound(tgt, leaf, opts);
    case 'nodegroup':
      return evalCompound(expandNodegroup(tgt, opts), leaf, opts);
    default:
      throw bad(String(tgt), String(type), `unknown target type (one of ${TARGET_TYPES.join(', ')})`);
  }
}

/**
 * The engines a target reads, compounds parsed and nodegroups expanded as matchTarget does, each
 * with the compound term or nodegroup it came from: what a target asks of the minion (its id
 * for glob, pcre and list; what it reports for the rest). Throws a coded error where
 * matchTarget would for any minion (a malformed compound, an unknown nodegroup).
 */
export function targetEngines(tgt: string | string[], type: TargetType, opts: TargetOptions = {}): Array<{ type: TargetType; term: string; via?: string }> {
  const out: Array<{ type: TargetType; term: string; via?: string }> = [];
  const visit = (via?: string): Leaf => {
    const leaf: Leaf = (t, ty, o) => {
      if (ty === 'compound') evalCompound(t, leaf, o);
      else if (ty === 'nodegroup') evalCompound(expandNodegroup(t, o), visit(via ?? t), o);
      else out.push({ type: ty, term: t, ...(via !== undefined ? { via } : {}) });
      return false;
    };
    return leaf;
  };
  if (Array.isArray(tgt) && type === 'list') out.push({ type, term: tgt.join(',') });
  else if (Array.isArray(tgt) && type === 'compound') visit()(tgt.join(' '), type, opts);
  else if (Array.isArray(tgt)) throw bad(tgt.join(','), type, 'a list target needs the list type (-L)');
  else visit()(tgt, type, opts);
  return out;
}

/** Checks an expression's syntax without a minion: every error, as diagnostics. */
export function checkTarget(tgt: string | string[], type: TargetType, opts: TargetOptions = {}): Diagnostic[] {
  try {
    matchTarget(tgt, type, { id: '', grains: {}, pillar: {} }, opts);
    return [];
  } catch (e) {
    if (e instanceof BrineError) {
      return [{ code: e.code, severity: 'error', message: e.message }];
    }
    throw e;
  }
}
