/**
 * The `params` object `brine validate` renders with. Nothing is known about the real values, so
 * every access answers with a stand-in that remembers how it was reached: a string (so it can be
 * printed, concatenated, used as a YAML key or value) holding a marker `brine__param_<n>__`
 * (not starting with `__`, which would make an ID internal).
 * After rendering, the markers found in each state say which parameters that state uses, and
 * each marker is put back as the expression that produced it (`{{ params.get('value') }}`).
 *
 * The seed's Idem implementation base64-encodes the expression into the marker; a numbered
 * marker pointing into this recorder gives the same output and survives filters that change
 * case.
 */
import { PY_OBJECT, type PyObjectHooks } from '@brine/jinja';

export type ParamKey = string | number;

/** One parameter path (`rg_name` -> `your_rg`), shared by every access to it. */
export class ParamNode {
  readonly children = new Map<ParamKey, ParamNode>();
  /** Defaults given at the accesses, in order (`params.get('k', 'dflt')`). */
  readonly defaults: unknown[] = [];

  readonly parent: ParamNode | undefined;
  readonly key: ParamKey | undefined;
  constructor(parent: ParamNode | undefined, key: ParamKey | undefined) {
    this.parent = parent;
    this.key = key;
  }

  get path(): ParamKey[] {
    const out: ParamKey[] = [];
    for (let n: ParamNode | undefined = this; n && n.key !== undefined; n = n.parent) out.unshift(n.key);
    return out;
  }

  child(key: ParamKey): ParamNode {
    let c = this.children.get(key);
    if (!c) {
      c = new ParamNode(this, key);
      this.children.set(key, c);
    }
    return c;
  }

  /**
   * What the parameter looks like from its uses: a dictionary of its sub-parameters, a list when
   * they are indexes (holes are null), or else its default ('' when none was given).
   */
  shape(): unknown {
    if (this.children.size === 0) {
      const d = this.defaults.find((x) => x !== null && x !== undefined);
      return d === undefined ? '' : d;
    }
    const keys = [...this.children.keys()];
    if (keys.every((k) => typeof k === 'number')) {
      const list: unknown[] = [];
      for (const k of keys as number[]) {
        while (list.length <= k) list.push(null);
        list[k] = this.children.get(k)!.shape();
      }
      return list;
    }
    const dict: Record<string, unknown> = {};
    for (const [k, c] of this.children) dict[String(k)] = c.shape();
    return dict;
  }
}

/** Python's repr() for the literals a template passes to `get()`. */
function literal(v: unknown): string {
  if (v === null || v === undefined) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (typeof v === 'number') return String(v);
  if (typeof v === 'string' || v instanceof String) {
    const s = String(v);
    const q = s.includes("'") && !s.includes('"') ? '"' : "'";
    return (
      q +
      s
        .replace(/\\/g, '\\\\')
        .replace(new RegExp(q, 'g'), '\\' + q)
        .replace(/\n/g, '\\n') +
      q
    );
  }
  if (Array.isArray(v)) return '[' + v.map(literal).join(', ') + ']';
  if (typeof v === 'object')
    return (
      '{' +
      Object.entries(v)
        .map(([k, x]) => `${literal(k)}: ${literal(x)}`)
        .join(', ') +
      '}'
    );
  return String(v);
}

function positional(args: unknown[]): unknown[] {
  const last = args[args.length - 1];
  if (last && typeof last === 'object' && (last as { __keywords?: unknown }).__keywords === true) return args.slice(0, -1);
  return args;
}

/** A key as the template wrote it: a literal, or the expression of a parameter used as a key. */
function keyText(k: unknown): string {
  return k instanceof ParamRef ? k.expression : literal(typeof k === 'number' ? k : String(k));
}

export const MARKER = /brine__param_(\d+)__/gi;

/** A stand-in value: prints as its marker. */
export class ParamRef extends String {
  readonly recorder: ParamRecorder;
  readonly index: number;
  readonly node: ParamNode;
  /** The expression that produced it, e.g. `params.get('rg_name').get('your_rg', 'rg')`. */
  readonly expression: string;
  constructor(recorder: ParamRecorder, index: number, node: ParamNode, expression: string) {
    super(`brine__param_${index}__`);
    this.recorder = recorder;
    this.index = index;
    this.node = node;
    this.expression = expression;
  }

  get [PY_OBJECT](): PyObjectHooks {
    return {
      lookup: (key, call) => this.recorder.lookup(this, key, call),
      // Iterating a list or dict parameter: one item, the parameter itself, so the loop body
      // renders once and the states it makes carry the parameter.
      iter: () => [this],
    };
  }
}

/** What a template did with params that the trace cannot follow. */
export interface RecorderNote {
  expression: string;
  note: string;
}

export class ParamRecorder {
  readonly root = new ParamNode(undefined, undefined);
  readonly refs: ParamRef[] = [];
  readonly notes: RecorderNote[] = [];
  /** The object templates see as `params`. */
  readonly params: ParamRef;

  constructor() {
    this.params = this.ref(this.root, 'params');
  }

  private ref(node: ParamNode, expression: string): ParamRef {
    const r = new ParamRef(this, this.refs.length, node, expression);
    this.refs.push(r);
    return r;
  }

  private child(from: ParamRef, key: ParamKey, expression: string, dflt?: unknown): ParamRef {
    const node = from.node.child(key);
    if (dflt !== undefined) node.defaults.push(dflt);
    return this.ref(node, expression);
  }

  /** `ref.key` / `ref['key']` / `ref.key(...)`. */
  lookup(self: ParamRef, key: unknown, call: boolean): unknown {
    if (!call) {
      if (typeof key === 'number') return this.child(self, key, `${self.expression}[${key}]`);
      if (typeof key === 'string' || key instanceof String) return this.child(self, String(key), `${self.expression}[${keyText(key)}]`);
      this.notes.push({ expression: self.expression, note: `a lookup with a ${typeof key} key cannot be traced` });
      return self;
    }
    const name = String(key);
    switch (name) {
      case 'get':
        return (...raw: unknown[]) => {
          const args = positional(raw);
          const k = args[0];
          if (typeof k !== 'string' && typeof k !== 'number' && !(k instanceof String)) {
            this.notes.push({ expression: `${self.expression}.get(...)`, note: 'get() with a key that is not a name cannot be traced' });
            return self;
          }
          const dflt = args.length > 1 ? args[1] : undefined;
          const expr = `${self.expression}.get(${keyText(k)}${dflt === undefined ? '' : `, ${literal(dflt)}`})`;
          return this.child(self, typeof k === 'number' ? k : String(k), expr, dflt ?? null);
        };
      case 'items':
        // One pair, both the parameter itself: `key-{{ k }}` and `value-{{ v }}` carry it.
        return () => [[self, self]];
      case 'keys':
      case 'values':
        return () => [self];
      default:
        // Any other method (split, lower, ...): its result stands for the parameter itself.
        return () => self;
    }
  }

  /** The ref a marker names, if it is one of ours. */
  refOf(index: number): ParamRef | undefined {
    return this.refs[index];
  }

  /** Every marker in `text`, in order. */
  refsIn(text: string): ParamRef[] {
    const out: ParamRef[] = [];
    for (const m of text.matchAll(MARKER)) {
      const r = this.refOf(Number(m[1]));
      if (r) out.push(r);
    }
    return out;
  }

  /** Puts the original expressions back: `{{ params.get('value') }}`. */
  restore(text: string): string {
    return text.replace(MARKER, (whole, n: string) => {
      const r = this.refOf(Number(n));
      return r ? `{{ ${r.expression} }}` : whole;
    });
  }

  /** `restore` over every key and string of a value. */
  restoreDeep<T>(v: T): T {
    if (typeof v === 'string') return this.restore(v) as T;
    if (v instanceof String) return this.restore(String(v)) as T;
    if (Array.isArray(v)) return v.map((x) => this.restoreDeep(x)) as T;
    if (v !== null && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) out[this.restore(k)] = this.restoreDeep(x);
      return out as T;
    }
    return v;
  }
}
