import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import path from 'node:path';
import {
  dirBindingsSource,
  loadBindings,
  resolveBindings,
  type BindingsFileRef,
  type BindingsSource,
  type CategorySpec,
  type Explanation,
  type LoadedBindings,
} from '@brine/bindings';
import type { Diagnostic, Grains, Pillar, StageResult } from '@brine/core';

/** One minion's bindings: the bound names as pillar, why each has its value, and the errors. */
export interface MinionBindings {
  pillar: Pillar;
  explain: Record<string, Explanation>;
  diagnostics: Diagnostic[];
}

export interface LoadedTree {
  hash: string;
  loaded: StageResult<LoadedBindings>;
  /** root-relative path -> the root(s) holding it, to name files fully in diagnostics. */
  roots: Map<string, string[]>;
}

const EMPTY: MinionBindings = { pillar: {}, explain: {}, diagnostics: [] };

/** A file's text and the sha256 of it, as last read, with the size and mtime it had then. */
interface Cached {
  size: number;
  mtimeMs: number;
  text: string | undefined;
  hash: string;
  /** Written long enough ago that a change would move its mtime (timestamps tick coarsely). */
  settled: boolean;
}

const GONE = { text: undefined, hash: '\u0001gone' };
const SETTLE_MS = 2000;

/**
 * Structured bindings on the master: the files under `bindings_roots` are parsed and checked
 * once per change of the tree (a file added, removed or with new contents), then resolved per
 * minion. A job reuses the listing taken for its first minion.
 */
export class BindingsService {
  private readonly source: BindingsSource;
  private current: LoadedTree | undefined;
  private readonly byJob = new Map<string, LoadedTree>();
  /** Contents by absolute path, kept while size and mtime stay the same (as FileRoots does). */
  private readonly content = new Map<string, Cached>();
  readonly enabled: boolean;

  private readonly categories: CategorySpec[];
  constructor(roots: { site?: string[]; modules?: string[] }, categories: CategorySpec[]) {
    this.categories = categories;
    this.source = dirBindingsSource(roots);
    this.enabled = (roots.site?.length ?? 0) + (roots.modules?.length ?? 0) > 0;
  }

  /** The loaded files for `jid` (or now): reloaded only when the listing or a file changed. */
  load(jid?: string): LoadedTree {
    if (jid !== undefined) {
      const hit = this.byJob.get(jid);
      if (hit) return hit;
    }
    const refs = this.source.list();
    const h = createHash('sha256');
    const roots = new Map<string, string[]>();
    const texts = new Map<string, string | undefined>();
    const seen = new Set<string>();
    const keyOf = (ref: BindingsFileRef) => `${ref.layer}\0${ref.root}\0${ref.path}`;
    for (const ref of refs) {
      // hash the contents, parse only when they changed; unchanged files are not even read
      const abs = path.join(ref.root, ...ref.path.split('/'));
      seen.add(abs);
      const { text, hash } = this.read(ref, abs);
      texts.set(keyOf(ref), text);
      h.update(`${keyOf(ref)}\0${hash}\0`);
      const held = roots.get(ref.path);
      if (held) held.push(ref.root);
      else roots.set(ref.path, [ref.root]);
    }
    for (const abs of this.content.keys()) if (!seen.has(abs)) this.content.delete(abs);
    const hash = h.digest('hex');
    if (!this.current || this.current.hash !== hash) {
      const snapshot: BindingsSource = { list: () => refs, read: (ref) => texts.get(keyOf(ref)) };
      this.current = { hash, loaded: loadBindings(snapshot, this.categories), roots };
    }
    if (jid !== undefined) {
      this.byJob.set(jid, this.current);
      if (this.byJob.size > 16) this.byJob.delete(this.byJob.keys().next().value!);
    }
    return this.current;
  }

  private read(ref: BindingsFileRef, abs: string): { text: string | undefined; hash: string } {
    let st;
    try {
      st = statSync(abs);
    } catch {
      return GONE;
    }
    const c = this.content.get(abs);
    if (c?.settled && c.size === st.size && c.mtimeMs === st.mtimeMs) return c;
    const text = this.source.read(ref);
    if (text === undefined) return GONE;
    const fresh: Cached = {
      size: st.size,
      mtimeMs: st.mtimeMs,
      text,
      hash: createHash('sha256').update(text).digest('hex'),
      settled: Date.now() - st.mtimeMs > SETTLE_MS,
    };
    this.content.set(abs, fresh);
    return fresh;
  }

  /** One minion's bindings. Never throws for bad bindings: errors come back as diagnostics. */
  resolve(id: string, grains: Grains, jid?: string, loaded?: LoadedTree): MinionBindings {
    if (!this.enabled) return EMPTY;
    const l = loaded ?? this.load(jid);
    const r = resolveBindings({ files: l.loaded.value, categories: this.categories, minion: { id, grains } });
    const diagnostics = [...l.loaded.diagnostics, ...r.diagnostics].map((d) => this.located(d, l));
    return { pillar: r.value.pillar, explain: r.value.explain, diagnostics };
  }

  /** Bindings diagnostics name files relative to their root; with several roots, say which. */
  private located(d: Diagnostic, l: LoadedTree): Diagnostic {
    const roots = d.file ? l.roots.get(d.file) : undefined;
    const file = roots && roots.length === 1 ? path.join(roots[0]!, d.file!) : d.file;
    return { ...d, ...(file ? { file } : {}), message: `bindings: ${d.message}` };
  }
}
