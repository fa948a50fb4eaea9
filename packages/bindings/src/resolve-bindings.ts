import type { Diagnostic, Pillar, StageResult } from '@brine/core';
import { placeOf, type Binding } from './binding.js';
import { LAYERS, type BindingsSource } from './bindings-source.js';
import {
  categorize,
  categoryKey,
  comparePrecedence,
  precedenceNames,
  precedenceOf,
  type Categorization,
  type CategorySpec,
  type MinionFacts,
} from './categories.js';
import { bindingsErrors, type BindingsErrorCode } from './errors.js';
import type { BindingRef, ContributionRef, Explanation } from './explanation.js';
import { interpolate, InterpolationError } from './interpolate.js';
import { loadBindings, type LoadedBindings } from './load-bindings.js';
import { produceArray, produceHash, type Contribution } from './multibind.js';
import { pushTo } from './push-to.js';
import { isPlainObject, nestNames } from './pillar-tree.js';
import { checkType } from './types-check.js';

export interface ResolveBindingsInput {
  /** Where the files are, or files already loaded with loadBindings (to reuse across minions). */
  files: BindingsSource | LoadedBindings;
  /** Highest precedence first; default node, environment, osfamily, common. */
  categories?: CategorySpec[];
  minion: MinionFacts;
}

export interface ResolvedBindings {
  /** The bound names, nested by their dots. */
  pillar: Pillar;
  /** Per bound name (as written, dotted): why it has its value. */
  explain: Record<string, Explanation>;
}

/** A binding placed for one minion: its precedence and whether the minion is in its categories. */
interface Placed {
  b: Binding;
  layer: number;
  precedence: number[];
  applies: boolean;
}

const FAILED = Symbol('failed');
type Value = unknown | typeof FAILED;

/**
 * Structured bindings -> one minion's pillar. For each name the strongest applicable binding wins:
 * the higher layer first (site over modules), then the higher precedence (the ranks of its `when`
 * categories, highest first, compared element by element). Errors never throw: the names they
 * touch are left out and each is reported with its files.
 */
export function resolveBindings(input: ResolveBindingsInput): StageResult<ResolvedBindings> {
  return new Resolver(input).run();
}

class Resolver {
  private readonly diagnostics: Diagnostic[] = [];
  private readonly cats: Categorization;
  private readonly loaded: LoadedBindings;
  /** Applicable named bindings per name, strongest first. */
  private readonly byName = new Map<string, Placed[]>();
  /** Every named binding per name, applicable or not (for override checks). */
  private readonly allByName = new Map<string, Placed[]>();
  private readonly contributions = new Map<string, Placed[]>();
  private readonly multibindNames = new Map<string, Set<string>>();
  private readonly failedNames = new Set<string>();
  private readonly errorsByName = new Map<string, Set<string>>();
  private readonly memo = new Map<string, Value | 'pending'>();
  private readonly stack: string[] = [];
  private readonly explain: Record<string, Explanation> = {};
  private readonly lookups = new Map<string, string[]>();
  private readonly multibindExplain = new Map<string, { placed: Placed[]; contribs: Contribution[]; used: boolean[] }>();

  private readonly input: ResolveBindingsInput;
  constructor(input: ResolveBindingsInput) {
    this.input = input;
    this.cats = categorize(input.categories, input.minion);
    if ('kind' in input.files && input.files.kind === 'loaded-bindings') this.loaded = input.files;
    else {
      const r = loadBindings(input.files as BindingsSource, input.categories);
      this.diagnostics.push(...r.diagnostics);
      this.loaded = r.value;
    }
  }

  run(): StageResult<ResolvedBindings> {
    this.place();
    this.checkDuplicates();
    this.checkOverrides();
    const entries: Array<[string, unknown]> = [];
    for (const name of this.byName.keys()) {
      const v = this.valueOf(name);
      this.explain[name] = this.explanation(name, v);
      if (v !== FAILED) entries.push([name, v]);
    }
    this.checkOrphanContributions();
    const pillar = nestNames(entries, (outer, inner) => {
      const b = this.byName.get(inner)![0].b;
      this.error('BRINE_ERR_BINDINGS_NAME_CLASH', { name: outer, inner }, b, inner);
      delete this.explain[inner].value;
    });
    for (const [name, codes] of this.errorsByName) {
      if (this.explain[name]) this.explain[name].errors = [...codes];
    }
    return { value: { pillar, explain: this.explain }, diagnostics: this.diagnostics };
  }

  private place(): void {
    for (const b of this.loaded.bindings) {
      const p: Placed = {
        b,
        layer: LAYERS.indexOf(b.layer),
        precedence: precedenceOf(
          b.when.map(([c]) => c),
          this.cats,
        ),
        applies: b.when.every(([c, v]) => this.cats.values.get(c)?.includes(categoryKey(v)) ?? false),
      };
      if (b.in !== undefined) {
        if (p.applies) pushTo(this.contributions, b.in, p);
        continue;
      }
      const name = b.name!;
      pushTo(this.allByName, name, p);
      if (b.multibind) {
        const names = this.multibindNames.get(b.multibind.id) ?? new Set<string>();
        names.add(name);
        this.multibindNames.set(b.multibind.id, names);
      }
      if (p.applies) pushTo(this.byName, name, p);
    }
    for (const list of [...this.byName.values(), ...this.contributions.values()]) list.sort(stronger);
  }

  /** The same name twice at one precedence in one layer: ambiguous, whichever would win. */
  private checkDuplicates(): void {
    for (const [name, list] of this.byName) {
      const groups = new Map<string, Placed[]>();
      for (const p of list) {
        const k = levelOf(p);
        pushTo(groups, k, p);
      }
      for (const [k, group] of groups) {
        if (group.length < 2) continue;
        this.error(
          'BRINE_ERR_BINDINGS_DUPLICATE',
          {
            name,
            layer: group[0].b.layer,
            precedence: this.precedenceText(group[0].precedence),
            places: group.map((p) => placeOf(p.b)).join(', '),
          },
          group[1].b,
          name,
        );
        if (k === levelOf(list[0])) this.failedNames.add(name);
      }
    }
  }

  /** An applicable `override: true` needs something below it: a lower layer, or lower precedence. */
  private checkOverrides(): void {
    for (const [name, list] of this.byName) {
      for (const p of list) {
        if (!p.b.override) continue;
        const below = (this.allByName.get(name) ?? []).some(
          (o) => o !== p && (o.layer > p.layer || (o.layer === p.layer && comparePrecedence(o.precedence, p.precedence) < 0)),
        );
        if (!below) this.error('BRINE_ERR_BINDINGS_OVERRIDE_NOTHING', { name, place: placeOf(p.b) }, p.b, name);
      }
    }
  }

  private checkOrphanContributions(): void {
    for (const [id, list] of this.contributions) {
      if (this.multibindNames.has(id)) continue;
      for (const p of list) this.error('BRINE_ERR_BINDINGS_UNKNOWN_MULTIBIND', { id, place: placeOf(p.b) }, p.b);
    }
  }

  /** Is `name` bound for this minion, directly or as the prefix of dotted names? */
  private isBound(name: string): boolean {
    if (this.byName.has(name)) return true;
    for (const n of this.byName.keys()) if (n.startsWith(`${name}.`)) return true;
    return false;
  }

  /** The value of a bound name (or the dictionary its dotted names make); FAILED after an error. */
  private valueOf(name: string, from?: Binding): Value {
    const memo = this.memo.get(name);
    if (memo === 'pending') {
      const chain = [...this.stack.slice(this.stack.indexOf(name)), name];
      this.error('BRINE_ERR_BINDINGS_LOOKUP_LOOP', { chain: this.chainText(chain) }, from ?? this.byName.get(name)?.[0].b, name);
      return FAILED;
    }
    if (memo !== undefined) return memo;
    this.memo.set(name, 'pending');
    this.stack.push(name);
    let v: Value;
    try {
      v = this.byName.has(name) ? this.evaluateName(name) : this.subtree(name);
    } finally {
      this.stack.pop();
    }
    this.memo.set(name, v);
    if (v === FAILED) this.failedNames.add(name);
    return v;
  }

  private subtree(name: string): Value {
    const entries: Array<[string, unknown]> = [];
    for (const n of this.byName.keys()) {
      if (!n.startsWith(`${name}.`)) continue;
      const v = this.valueOf(n);
      if (v === FAILED) return FAILED;
      entries.push([n.slice(name.length + 1), v]);
    }
    let failed = false;
    const out = nestNames(entries, () => (failed = true));
    return failed ? FAILED : out;
  }

  private evaluateName(name: string): Value {
    if (this.failedNames.has(name)) return FAILED;
    const b = this.byName.get(name)![0].b;
    if (b.abstract) {
      this.error('BRINE_ERR_BINDINGS_ABSTRACT', { name, place: placeOf(b) }, b, name);
      return FAILED;
    }
    if (b.multibind) return this.multibind(name, b);
    return this.evaluate(b, name);
  }

  /** A binding's own value: `to` interpolated, or one of the lookups; then its declared type. */
  /** `owner` is the pillar name whose explanation collects the errors (a multibind's, for a contribution). */
  private evaluate(b: Binding, label: string, owner: string | undefined = b.in === undefined ? b.name : undefined): Value {
    let v: Value;
    try {
      v = this.evaluateSpec(b, label, owner);
    } catch (e) {
      if (!(e instanceof InterpolationError)) throw e;
      this.error('BRINE_ERR_BINDINGS_INTERPOLATION', { name: label, place: placeOf(b), expr: e.expr, detail: e.message }, b, owner);
      return FAILED;
    }
    if (v !== FAILED && b.type !== undefined) {
      const got = checkType(b.type, v);
      if (got !== undefined) {
        this.error('BRINE_ERR_BINDINGS_TYPE', { name: label, place: placeOf(b), type: b.type, got }, b, owner);
        return FAILED;
      }
    }
    return v;
  }

  private evaluateSpec(b: Binding, label: string, owner: string | undefined): Value {
    const spec = b.value;
    const str = (x: unknown) => String(interpolate(x, this.cats, this.input.minion.grains));
    const note = (n: string) => {
      if (owner) pushTo(this.lookups, owner, n);
    };
    switch (spec.kind) {
      case 'to':
        return interpolate(spec.to, this.cats, this.input.minion.grains);
      case 'lookup_of': {
        const target = str(spec.name);
        note(target);
        if (!this.isBound(target)) {
          this.error('BRINE_ERR_BINDINGS_LOOKUP_MISSING', { name: label, place: placeOf(b), what: `'${target}'` }, b, owner);
          return FAILED;
        }
        return this.inherit(owner, target, this.valueOf(target, b));
      }
      case 'first_found': {
        const names = spec.names.map(str);
        for (const n of names) {
          if (!this.isBound(n)) continue;
          note(n);
          return this.inherit(owner, n, this.valueOf(n, b));
        }
        const what = `the first found of ${names.map((n) => `'${n}'`).join(', ')}`;
        this.error('BRINE_ERR_BINDINGS_LOOKUP_MISSING', { name: label, place: placeOf(b), what }, b, owner);
        return FAILED;
      }
      case 'hash_lookup': {
        const target = str(spec.name);
        const key = str(spec.key);
        note(`${target}[${key}]`);
        if (!this.isBound(target)) {
          this.error('BRINE_ERR_BINDINGS_LOOKUP_MISSING', { name: label, place: placeOf(b), what: `'${target}'` }, b, owner);
          return FAILED;
        }
        const h = this.inherit(owner, target, this.valueOf(target, b));
        if (h === FAILED) return FAILED;
        if (!isPlainObject(h)) {
          this.error('BRINE_ERR_BINDINGS_HASH_LOOKUP', { name: label, place: placeOf(b), detail: `'${target}' is not a dictionary` }, b, owner);
          return FAILED;
        }
        if (!(key in h)) {
          this.error('BRINE_ERR_BINDINGS_HASH_LOOKUP', { name: label, place: placeOf(b), detail: `'${target}' has no key '${key}'` }, b, owner);
          return FAILED;
        }
        return h[key];
      }
      case 'none':
        return FAILED;
    }
  }

  /** A name that looked up a failed one fails too, and says why in its explanation. */
  private inherit(owner: string | undefined, target: string, v: Value): Value {
    if (v !== FAILED || owner === undefined) return v;
    const codes = new Set<string>();
    for (const [n, set] of this.errorsByName) {
      if (n === target || n.startsWith(`${target}.`)) for (const c of set) codes.add(c);
    }
    const mine = this.errorsByName.get(owner) ?? new Set<string>();
    for (const c of codes) mine.add(c);
    this.errorsByName.set(owner, mine);
    return v;
  }

  private multibind(name: string, b: Binding): Value {
    const mb = b.multibind!;
    const names = this.multibindNames.get(mb.id)!;
    if (names.size > 1) {
      this.error('BRINE_ERR_BINDINGS_MULTIBIND', { id: mb.id, name, detail: `the id is declared for several names (${[...names].join(', ')})` }, b, name);
      return FAILED;
    }
    const placed = this.contributions.get(mb.id) ?? [];
    const contribs: Contribution[] = [];
    let failed = false;
    for (const p of placed) {
      const v = this.evaluate(p.b, `${mb.id}${p.b.name !== undefined ? `[${p.b.name}]` : ''}`, name);
      if (v === FAILED) failed = true;
      contribs.push({ key: p.b.name, value: v, level: levelOf(p), place: placeOf(p.b) });
    }
    const produced = (mb.type === 'hash' ? produceHash : produceArray)(contribs, mb.options);
    this.multibindExplain.set(name, { placed, contribs, used: produced.used });
    for (const e of produced.errors) this.error('BRINE_ERR_BINDINGS_MULTIBIND', { id: mb.id, name, detail: e.detail }, placed[e.at].b, name);
    return failed || produced.errors.length ? FAILED : produced.value;
  }

  private ref(p: Placed): BindingRef {
    const b = p.b;
    const r: BindingRef = {
      layer: b.layer,
      root: b.root,
      file: b.file,
      line: b.line,
      bindings: b.bindings,
      categories: Object.fromEntries(b.when),
      precedence: precedenceNames(p.precedence, this.cats),
      kind: b.abstract ? 'abstract' : b.multibind ? 'multibind' : b.value.kind === 'none' ? 'to' : b.value.kind,
    };
    if (b.abstract) r.abstract = true;
    if (b.override) r.override = true;
    return r;
  }

  private explanation(name: string, v: Value): Explanation {
    const [win, ...rest] = this.byName.get(name)!;
    const e: Explanation = v === FAILED ? { name, winner: this.ref(win), shadowed: [] } : { name, value: v, winner: this.ref(win), shadowed: [] };
    e.shadowed = rest.map((p) => this.ref(p));
    const looked = this.lookups.get(name);
    if (looked) e.lookups = looked;
    const mb = this.multibindExplain.get(name);
    if (mb && win.b.multibind) {
      e.multibind = {
        id: win.b.multibind.id,
        type: win.b.multibind.type,
        contributions: mb.placed.map((p, i): ContributionRef => {
          const c: ContributionRef = { ...this.ref(p), used: mb.used[i] && mb.contribs[i].value !== FAILED };
          if (p.b.name !== undefined) c.key = p.b.name;
          if (mb.contribs[i].value !== FAILED) c.value = mb.contribs[i].value;
          return c;
        }),
      };
    }
    return e;
  }

  private precedenceText(p: number[]): string {
    return p.length ? precedenceNames(p, this.cats).join('+') : 'unconditional';
  }

  private chainText(chain: string[]): string {
    return chain
      .map((n) => {
        const b = this.byName.get(n)?.[0].b;
        return b ? `'${n}' (${placeOf(b)})` : `'${n}'`;
      })
      .join(' -> ');
  }

  private error(code: BindingsErrorCode, args: Record<string, unknown>, at: Binding | undefined, name?: string): void {
    this.diagnostics.push(bindingsErrors.diag(code, args, at ? { file: at.file, line: at.line } : {}));
    if (name !== undefined) {
      const set = this.errorsByName.get(name) ?? new Set<string>();
      set.add(code);
      this.errorsByName.set(name, set);
    }
  }
}

/** Layer and precedence, as one comparable-for-equality key. */
function levelOf(p: Placed): string {
  return `${p.layer}:${p.precedence.join(',')}`;
}

/** Strongest first: higher layer, then higher precedence, then the order written. */
function stronger(a: Placed, b: Placed): number {
  return a.layer - b.layer || comparePrecedence(b.precedence, a.precedence) || a.b.seq - b.b.seq;
}
