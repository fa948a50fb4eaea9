import { createHash } from 'node:crypto';
import {
  compileHighstate,
  compileSls,
  compileTopFiles,
  renderSls,
  type CompileOptions,
} from '@brine/compiler';
import { formatDiagnostic, type Diagnostic, type Grains, type HighData, type LowChunk, type Matches, type Pillar } from '@brine/core';
import type { Logger } from '@brine/core';
import type { MasterConfig } from './config.js';
import { FileRoots, type TreeSnapshot } from './file-roots.js';
import { runMasterTops, type LoadedTops } from './master-tops.js';
import { compilePillar, type PillarResult } from './pillar.js';

export type CompileMode = 'top' | 'highstate' | 'sls';

export interface CompileRequest {
  mode: CompileMode;
  sls?: string[];
  saltenv?: string;
  /** show_low_sls: stop before extend/requisite_in/exclude. */
  raw?: boolean;
  /** Inline pillar given on the command line (`pillar='{...}'`), merged over the minion's. */
  pillar?: Record<string, unknown>;
  /** The job asking: every minion of a job compiles against one snapshot of the tree. */
  jid?: string;
}

/** What a minion gets back: enough to run (low) or to show (matches, high). */
export interface CompileReply {
  matches: Matches;
  high: HighData;
  low: LowChunk[];
  diagnostics: Diagnostic[];
  /** Errors formatted the way the highstate outputter lists them (file, line, ID). */
  errors: string[];
  failed: boolean;
  pillar: Pillar;
  cached: boolean;
}

/**
 * Templates render on the master: an execution function that would have to run on the minion
 * (cmd.run, file.read, ...) is not there. The renderer only says the call failed; say why.
 */
export function explainMasterSide(d: Diagnostic): Diagnostic {
  const m = /Unable to call `salt(?:\["([\w.]+)"\]|\.(\w+\.\w+))`/.exec(d.message);
  if (!m) return d;
  const fn = m[1] ?? m[2];
  return {
    ...d,
    message: `${d.message} (salt['${fn}'] is not available: templates render on the master, where only the built-in helpers such as pillar.get and grains.get exist; execution functions that would run on the minion cannot be called from SLS templates)`,
  };
}

function hashOf(...parts: unknown[]): string {
  const h = createHash('sha256');
  for (const p of parts) h.update(typeof p === 'string' ? p : JSON.stringify(p) ?? 'undefined').update('\0');
  return h.digest('hex');
}

class Lru<V> {
  private readonly map = new Map<string, V>();
  hits = 0;
  misses = 0;
  constructor(private readonly size: number) {}
  get(k: string): V | undefined {
    const v = this.map.get(k);
    if (v === undefined) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    this.map.delete(k);
    this.map.set(k, v);
    return v;
  }
  set(k: string, v: V): void {
    if (this.size <= 0) return;
    this.map.set(k, v);
    if (this.map.size > this.size) this.map.delete(this.map.keys().next().value!);
  }
}

/**
 * The master's side of a highstate: per minion, its pillar and its compiled state from the file
 * roots, top files and master_tops. Results are cached per minion keyed by the tree's content,
 * the grains, the pillar and the request, so repeated runs of an unchanged tree do not render
 * again.
 */
export class StateService {
  readonly files: FileRoots;
  readonly pillars: FileRoots;
  private readonly compiled: Lru<CompileReply>;
  private readonly pillarCache: Lru<PillarResult>;

  constructor(
    private readonly config: MasterConfig,
    private readonly tops: LoadedTops,
    private readonly log: Logger,
  ) {
    const escape = (what: string) => (env: string, file: string, target: string) =>
      log.warn({ event: 'file_refused', env, path: file, target, roots: what }, 'symlink points out of its root; it is not served');
    this.files = new FileRoots(config.file_roots, config.env_order, escape('file_roots'));
    this.pillars = new FileRoots(config.pillar_roots, config.env_order, escape('pillar_roots'));
    this.compiled = new Lru(config.compile_cache_size);
    this.pillarCache = new Lru(config.compile_cache_size);
  }

  get stats() {
    return { compile_hits: this.compiled.hits, compile_misses: this.compiled.misses, pillar_hits: this.pillarCache.hits, pillar_misses: this.pillarCache.misses };
  }

  /** A minion's pillar, from the pillar roots, with its grains. */
  pillar(id: string, grains: Grains, jid?: string): PillarResult {
    const snap = this.pillars.snapshot(jid && `pillar:${jid}`);
    const g = { ...grains, id };
    const key = hashOf(snap.hash, id, g, this.config.pillar_merge_lists);
    const hit = this.pillarCache.get(key);
    if (hit) return hit;
    const res = compilePillar(snap, { id, grains: g }, { mergeLists: this.config.pillar_merge_lists, nodegroups: this.config.nodegroups });
    this.pillarCache.set(key, res);
    return res;
  }

  private options(snap: TreeSnapshot, id: string, grains: Grains, pillar: Pillar, req: CompileRequest, ext: Matches): CompileOptions {
    return {
      tree: snap.tree,
      minion: { id, grains },
      pillar,
      render: renderSls,
      strategy: this.config.top_file_merging_strategy,
      defaultTop: this.config.default_top,
      stateTop: this.config.state_top,
      nodegroups: this.config.nodegroups,
      extMatches: ext,
      ...(req.saltenv ? { saltenv: req.saltenv } : {}),
    };
  }

  async compile(id: string, rawGrains: Grains, req: CompileRequest): Promise<CompileReply> {
    const grains = { ...rawGrains, id };
    const pil = this.pillar(id, grains, req.jid);
    const pillar = req.pillar ? { ...pil.pillar, ...req.pillar } : pil.pillar;
    const fail = (raw: Diagnostic[], matches: Matches = {}): CompileReply => {
      const diagnostics = raw.map(explainMasterSide);
      const errors = diagnostics.filter((d) => d.severity === 'error').map(formatDiagnostic);
      return { matches, high: {}, low: [], diagnostics, errors, failed: true, pillar, cached: false };
    };
    if (pil.diagnostics.some((d) => d.severity === 'error')) return fail(pil.diagnostics);
    let ext: Matches = {};
    if (req.mode !== 'sls' && (this.tops.plugins.length || this.tops.errors.length)) {
      const t = await runMasterTops(this.tops, id, grains);
      if (t.diagnostics.length) {
        for (const d of t.diagnostics) this.log.warn({ minion: id, code: d.code }, d.message);
        return fail(t.diagnostics);
      }
      ext = t.matches;
    }
    const snap = this.files.snapshot(req.jid);
    const key = hashOf(snap.hash, id, grains, pillar, ext, req.mode, req.sls ?? [], req.saltenv ?? '', !!req.raw, this.config.top_file_merging_strategy);
    const hit = this.compiled.get(key);
    if (hit) return { ...hit, cached: true };
    const opts = this.options(snap, id, grains, pillar, req, ext);
    let reply: CompileReply;
    if (req.mode === 'top') {
      const top = compileTopFiles(opts);
      const failed = top.diagnostics.some((d) => d.severity === 'error');
      reply = failed ? fail(top.diagnostics, top.matches) : { matches: top.matches, high: {}, low: [], diagnostics: top.diagnostics, errors: [], failed: false, pillar, cached: false };
    } else {
      const c = req.mode === 'sls' ? compileSls(opts, req.sls ?? [], req.saltenv ?? 'base', !!req.raw) : compileHighstate(opts, !!req.raw);
      reply = c.failed
        ? fail(c.diagnostics, c.matches)
        : { matches: c.matches, high: c.rawHigh, low: c.low, diagnostics: c.diagnostics, errors: [], failed: false, pillar, cached: false };
    }
    this.compiled.set(key, reply);
    return reply;
  }
}
