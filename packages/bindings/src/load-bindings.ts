import type { Diagnostic, StageResult } from '@brine/core';
import { isAlias, isMap, isScalar, isSeq, LineCounter, parseDocument, type Document, type Node } from 'yaml';
import type { Binding, ConflictResolution, MultibindOptions, ValueSpec } from './binding.js';
import { bindingsNameOf, type BindingsFileRef, type BindingsSource } from './bindings-source.js';
import { categoryNames, type CategorySpec } from './categories.js';
import { bindingsErrors } from './errors.js';
import { pushTo } from './push-to.js';
import { baseType, TYPE_NAMES } from './types-check.js';

/** Every binding of every file, in file order, plus what was wrong with the files. */
export interface LoadedBindings {
  readonly kind: 'loaded-bindings';
  bindings: Binding[];
  /** Logical names of the files read, by layer. */
  files: Array<{ layer: string; root: string; path: string; bindings: string }>;
}

const BINDING_KEYS = new Set([
  'name',
  'type',
  'to',
  'multibind_id',
  'in',
  'options',
  'to_first_found',
  'to_lookup_of',
  'to_hash_lookup',
  'abstract',
  'override',
]);
const UNSUPPORTED: Record<string, string> = {
  to_expression: 'Brine has no expression language in data; use to_lookup_of or interpolation',
  to_instance: 'it instantiates Ruby classes',
  to_producer: 'it instantiates Ruby classes',
};
const VALUE_KEYS = ['to', 'to_first_found', 'to_lookup_of', 'to_hash_lookup'] as const;
const RESOLUTIONS = new Set<ConflictResolution>(['error', 'merge', 'append', 'priority', 'ignore']);

/**
 * Reads and checks every bindings file of a source, once for any number of minions. `categories`
 * are the configured ones (default node, environment, osfamily, common): a `when:` naming another
 * is an error here, whatever the minion. Pass the result to resolveBindings as `files`.
 */
export function loadBindings(source: BindingsSource, categories?: CategorySpec[]): StageResult<LoadedBindings> {
  const names = categoryNames(categories);
  const diagnostics: Diagnostic[] = [];
  const out: LoadedBindings = { kind: 'loaded-bindings', bindings: [], files: [] };
  const byName = new Map<string, BindingsFileRef[]>();
  for (const ref of source.list()) {
    const text = source.read(ref);
    if (text === undefined) continue;
    const logical = bindingsNameOf(ref.path);
    const key = `${ref.layer}\0${logical}`;
    pushTo(byName, key, ref);
    if (byName.get(key)!.length > 1) continue;
    out.files.push({ layer: ref.layer, root: ref.root, path: ref.path, bindings: logical });
    new FileLoader(ref, logical, text, names, out.bindings, diagnostics).load();
  }
  for (const refs of byName.values()) {
    if (refs.length < 2) continue;
    diagnostics.push(
      bindingsErrors.diag(
        'BRINE_ERR_BINDINGS_DUPLICATE_FILE',
        { bindings: bindingsNameOf(refs[0].path), layer: refs[0].layer, files: refs.map((r) => `${r.root}/${r.path}`).join(', ') },
        { file: refs[1].path },
      ),
    );
  }
  return { value: out, diagnostics };
}

class FileLoader {
  private readonly lc = new LineCounter();
  private doc!: Document;

  private readonly ref: BindingsFileRef;
  private readonly logical: string;
  private readonly text: string;
  private readonly categories: string[];
  private readonly sink: Binding[];
  private readonly diagnostics: Diagnostic[];
  constructor(ref: BindingsFileRef, logical: string, text: string, categories: string[], sink: Binding[], diagnostics: Diagnostic[]) {
    this.ref = ref;
    this.logical = logical;
    this.text = text;
    this.categories = categories;
    this.sink = sink;
    this.diagnostics = diagnostics;
  }

  load(): void {
    this.doc = parseDocument(this.text, {
      version: '1.1',
      merge: true,
      lineCounter: this.lc,
      // Dates stay the strings they were written as: pillar data is plain JSON.
      customTags: (tags) => tags.filter((t) => (typeof t === 'string' ? t : t.tag) !== 'tag:yaml.org,2002:timestamp'),
    });
    if (this.doc.errors.length) {
      const e = this.doc.errors[0];
      const detail = e.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
      this.diagnostics.push(
        bindingsErrors.diag('BRINE_ERR_BINDINGS_YAML', { detail }, { file: this.ref.path, line: e.linePos?.[0].line, column: e.linePos?.[0].col }),
      );
      return;
    }
    const top = this.deref(this.doc.contents);
    if (!isMap(top)) return this.shape('the file must be a dictionary with bindings_version, name and bind', top);
    const version = this.get(top, 'bindings_version');
    if (version === undefined) return this.shape('bindings_version is missing (write bindings_version: 1)', top);
    const v = this.js(version);
    if (v !== 1) {
      this.diagnostics.push(bindingsErrors.diag('BRINE_ERR_BINDINGS_VERSION', { got: JSON.stringify(v) }, { file: this.ref.path, line: this.line(version) }));
      return;
    }
    const nameNode = this.get(top, 'name');
    const name = nameNode === undefined ? undefined : this.js(nameNode);
    if (typeof name !== 'string' || name === '') return this.shape('name is missing or not a string', nameNode ?? top);
    if (name !== this.logical) {
      this.diagnostics.push(
        bindingsErrors.diag('BRINE_ERR_BINDINGS_NAME_MISMATCH', { expected: this.logical, got: name }, { file: this.ref.path, line: this.line(nameNode!) }),
      );
      return;
    }
    for (const pair of top.items) {
      const k = this.js(pair.key as Node);
      if (k !== 'bindings_version' && k !== 'name' && k !== 'bind') this.shape(`unknown top-level key '${String(k)}'`, pair.key as Node);
    }
    const bind = this.get(top, 'bind');
    if (bind === undefined) return this.shape('bind is missing', top);
    this.bindList(bind, []);
  }

  private bindList(node: Node, when: Array<[string, string]>): void {
    const seq = this.deref(node);
    if (!isSeq(seq)) return this.shape('bind must be a list', seq ?? node);
    for (const item of seq.items) {
      const entry = this.deref(item as Node);
      if (isSeq(entry)) this.shortForm(entry, when);
      else if (isMap(entry)) {
        if (this.get(entry, 'when') !== undefined) this.conditional(entry, when);
        else this.longForm(entry, when);
      } else this.shape('each bind entry must be [name, value] or a dictionary', entry ?? (item as Node));
    }
  }

  private shortForm(entry: Node & { items: unknown[] }, when: Array<[string, string]>): void {
    const [nameNode, valueNode] = entry.items as Node[];
    const name = nameNode === undefined ? undefined : this.js(nameNode);
    if (entry.items.length !== 2 || typeof name !== 'string' || name === '') {
      return this.shape('the short form is a two-item list [name, value] with a string name', entry);
    }
    this.push(entry, when, { name, value: { kind: 'to', to: this.js(valueNode) } });
  }

  private conditional(entry: Node & { items: Array<{ key: unknown; value: unknown }> }, outer: Array<[string, string]>): void {
    for (const pair of entry.items) {
      const k = this.js(pair.key as Node);
      if (k !== 'when' && k !== 'bind') this.shape(`a conditional block takes when and bind, not '${String(k)}'`, pair.key as Node);
    }
    const whenNode = this.deref(this.get(entry as never, 'when'));
    if (!isMap(whenNode) || whenNode.items.length === 0) {
      return this.shape('when must be a dictionary of category: value', whenNode ?? entry);
    }
    const when: Array<[string, string]> = [...outer];
    let ok = true;
    for (const pair of whenNode.items) {
      const cat = this.js(pair.key as Node);
      const val = this.js(pair.value as Node);
      if (typeof cat !== 'string' || val === null || val === undefined || typeof val === 'object') {
        this.shape('when must map category names to single values', pair.key as Node);
        ok = false;
        continue;
      }
      if (!this.categories.includes(cat)) {
        this.diagnostics.push(
          bindingsErrors.diag(
            'BRINE_ERR_BINDINGS_UNKNOWN_CATEGORY',
            { category: cat, known: this.categories.join(', ') },
            { file: this.ref.path, line: this.line(pair.key as Node) },
          ),
        );
        ok = false;
        continue;
      }
      when.push([cat, String(val)]);
    }
    if (!ok) return;
    const bind = this.get(entry as never, 'bind');
    if (bind === undefined) return this.shape('a conditional block needs a bind list', entry);
    this.bindList(bind, when);
  }

  private longForm(entry: Node & { items: Array<{ key: unknown; value: unknown }> }, when: Array<[string, string]>): void {
    const raw: Record<string, unknown> = {};
    const nodes: Record<string, Node> = {};
    for (const pair of entry.items) {
      const k = this.js(pair.key as Node);
      const key = String(k);
      if (key in UNSUPPORTED) {
        this.diagnostics.push(
          bindingsErrors.diag('BRINE_ERR_BINDINGS_UNSUPPORTED', { key, why: UNSUPPORTED[key] }, { file: this.ref.path, line: this.line(pair.key as Node) }),
        );
        return;
      }
      if (!BINDING_KEYS.has(key)) return this.shape(`unknown binding key '${key}'`, pair.key as Node);
      raw[key] = this.js(pair.value as Node);
      nodes[key] = pair.value as Node;
    }
    const fail = (detail: string, at?: string) => this.shape(detail, (at && nodes[at]) || entry);
    const valueKeys = VALUE_KEYS.filter((k) => k in raw);
    if (valueKeys.length > 1) return fail(`a binding takes one of ${VALUE_KEYS.join(', ')}, not ${valueKeys.join(' and ')}`);
    for (const flag of ['abstract', 'override'] as const) {
      if (flag in raw && typeof raw[flag] !== 'boolean') return fail(`${flag} must be true or false`, flag);
    }
    const abstract = raw.abstract === true;
    const override = raw.override === true;
    if ('name' in raw && (typeof raw.name !== 'string' || raw.name === '')) return fail('name must be a non-empty string', 'name');
    if ('type' in raw && (typeof raw.type !== 'string' || !TYPE_NAMES.includes(baseType(raw.type)))) {
      return fail(`type must be one of ${TYPE_NAMES.join(', ')}`, 'type');
    }
    if ('in' in raw && (typeof raw.in !== 'string' || raw.in === '')) return fail('in must name a multibind id', 'in');
    const name = raw.name as string | undefined;

    let value: ValueSpec = { kind: 'none' };
    if ('to' in raw) value = { kind: 'to', to: raw.to };
    else if ('to_first_found' in raw) {
      const names = Array.isArray(raw.to_first_found) ? raw.to_first_found : [raw.to_first_found];
      if (names.length === 0 || names.some((n) => typeof n !== 'string')) return fail('to_first_found must be a list of names', 'to_first_found');
      value = { kind: 'first_found', names };
    } else if ('to_lookup_of' in raw) {
      if (typeof raw.to_lookup_of !== 'string') return fail('to_lookup_of must be a name', 'to_lookup_of');
      value = { kind: 'lookup_of', name: raw.to_lookup_of };
    } else if ('to_hash_lookup' in raw) {
      const h = raw.to_hash_lookup as Record<string, unknown> | null;
      if (!h || typeof h !== 'object' || Array.isArray(h) || typeof h.name !== 'string' || h.key === undefined || h.key === null || typeof h.key === 'object') {
        return fail('to_hash_lookup must be {name: <name>, key: <key>}', 'to_hash_lookup');
      }
      value = { kind: 'hash_lookup', name: h.name, key: h.key };
    }

    const b: Partial<Binding> = { name, value, abstract, override };
    if (typeof raw.type === 'string') b.type = raw.type;
    if ('multibind_id' in raw) {
      if (typeof raw.multibind_id !== 'string' || raw.multibind_id === '') return fail('multibind_id must be a string', 'multibind_id');
      if (name === undefined) return fail('a multibind needs the name it is bound to');
      if (value.kind !== 'none') return fail('a multibind gets its value from its contributions (in:), not from to');
      if ('in' in raw) return fail('a binding is either a multibind or a contribution to one');
      const t = baseType(typeof raw.type === 'string' ? raw.type : 'hash');
      if (t !== 'hash' && t !== 'array') return fail("a multibind's type is hash or array", 'type');
      const options = this.options(raw.options, t, (d) => fail(d, 'options'));
      if (!options) return;
      b.multibind = { id: raw.multibind_id, type: t, options };
      delete b.type;
    } else if ('options' in raw) return fail('options apply to a multibind (multibind_id)', 'options');
    if ('in' in raw) {
      b.in = raw.in as string;
      if (abstract || override) return fail('abstract and override apply to named bindings, not to contributions (in:)');
      if (value.kind === 'none') return fail('a contribution needs a value (to, to_lookup_of, ...)');
    } else if (!b.multibind) {
      if (name === undefined) return fail('a binding needs a name');
      if (value.kind === 'none' && !abstract)
        return fail(`'${name}' binds no value (give to, to_lookup_of, to_first_found or to_hash_lookup, or mark it abstract)`);
      if (value.kind !== 'none' && abstract) return fail(`'${name}' is abstract and so cannot have a value`);
    }
    this.push(entry, when, b);
  }

  private options(raw: unknown, type: 'hash' | 'array', fail: (d: string) => void): MultibindOptions | undefined {
    const o: MultibindOptions = { conflict_resolution: 'priority', flatten: false, uniq: false, priority_on_named: true, priority_on_unnamed: false };
    if (raw === undefined || raw === null) return o;
    if (typeof raw !== 'object' || Array.isArray(raw)) return void fail('options must be a dictionary');
    const allowed = type === 'hash' ? ['conflict_resolution', 'flatten', 'uniq'] : ['flatten', 'priority_on_named', 'priority_on_unnamed', 'uniq'];
    for (const [k, v] of Object.entries(raw as Record<string, unknown>)) {
      if (!allowed.includes(k)) return void fail(`'${k}' is not an option of ${type === 'array' ? 'an array' : 'a hash'} multibind (${allowed.join(', ')})`);
      if (k === 'conflict_resolution') {
        if (!RESOLUTIONS.has(v as ConflictResolution)) return void fail(`conflict_resolution is one of ${[...RESOLUTIONS].join(', ')}`);
        o.conflict_resolution = v as ConflictResolution;
      } else if (k === 'flatten') {
        if (typeof v !== 'boolean' && !(typeof v === 'number' && Number.isInteger(v) && v >= 0))
          return void fail('flatten is true, false or a number of levels');
        o.flatten = v;
      } else {
        if (typeof v !== 'boolean') return void fail(`${k} must be true or false`);
        (o as unknown as Record<string, boolean>)[k] = v;
      }
    }
    return o;
  }

  private push(node: Node, when: Array<[string, string]>, b: Partial<Binding>): void {
    this.sink.push({
      layer: this.ref.layer,
      root: this.ref.root,
      file: this.ref.path,
      line: this.line(node),
      bindings: this.logical,
      when,
      value: { kind: 'none' },
      abstract: false,
      override: false,
      ...b,
      seq: this.sink.length,
    } as Binding);
  }

  private shape(detail: string, node: Node | null | undefined): void {
    this.diagnostics.push(bindingsErrors.diag('BRINE_ERR_BINDINGS_SHAPE', { detail }, { file: this.ref.path, line: node ? this.line(node) : undefined }));
  }

  private deref(node: unknown): Node | null {
    if (node === null || node === undefined) return null;
    return isAlias(node) ? ((node.resolve(this.doc) as Node) ?? null) : (node as Node);
  }

  private get(map: Node, key: string): Node | undefined {
    if (!isMap(map)) return undefined;
    for (const pair of map.items) {
      if (this.js(pair.key as Node) === key) return (pair.value as Node) ?? undefined;
    }
    return undefined;
  }

  private js(node: Node | null | undefined): unknown {
    if (node === null || node === undefined) return null;
    if (isScalar(node)) return node.value;
    return node.toJS(this.doc);
  }

  private line(node: Node): number {
    const start = node.range?.[0];
    return start === undefined ? 1 : this.lc.linePos(start).line;
  }
}
