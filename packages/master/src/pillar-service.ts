import { answersUsed, HOST_CALL_ROUNDS, type HostAnswer, type HostCall } from '@brine/compiler';
import { mergeWithClassicPillar, type Explanation } from '@brine/bindings';
import { hasErrors, packKeyOrder, type Grains, type Logger, type Pillar } from '@brine/core';
import { FileRoots, type GitPillar, type TreeBackend, type TreeSnapshot } from '@brine/fileserver';
import type { MasterConfig } from './config.js';
import { gitPillar, logEscape, treeOf } from './file-backends.js';
import { BindingsService, type LoadedTree } from './bindings-service.js';
import type { GpgDecryptor } from './gpg-decrypt.js';
import { masterErrors } from './errors.js';
import { assemblePillar, type PillarPart } from './ext-pillar/assemble.js';
import { extPillarPlan, type PlanEntry } from './ext-pillar/ext-pillar-plan.js';
import type { ExtSource } from './ext-pillar/ext-source.js';
import { mergeSources, type MergeStrategy } from './ext-pillar/merge-strategy.js';
import { compilePillar, type PillarResult } from './pillar.js';
import { BoundedCache } from './bounded-cache.js';
import { POOL_FAILURES, type CompilePool } from './compile-pool.js';
import { anonymousJson, hashOf } from './cache-keys.js';

/** A minion's pillar with the explanation of every name its bindings bound. */
export interface MinionPillar extends PillarResult {
  explain: Record<string, Explanation>;
  /** Each source's own pillar, in merge order (`brine pillar explain` names where a value came from). */
  parts?: PillarPart[];
}

/** A minion's pillar from the trees (pillar roots, git_pillar), and the whole of it when no other source is asked each time. */
interface CachedPillar {
  trees: PillarPart[];
  mine: Array<[HostCall, HostAnswer]>;
  res?: MinionPillar;
}

/** What the pillar shares with the state compiles: their workers and their GPG decryptor. */
export interface PillarServiceDeps {
  /** The compile workers (undefined: render in process, for a service without a pool). */
  workers: () => Promise<CompilePool | undefined>;
  decryptor: () => GpgDecryptor;
}

/**
 * A minion's pillar on the master: the pillar roots (rendered on a compile worker with its
 * grains), the git_pillar trees and the other ext_pillar sources merged in Salt's order, its
 * gpg-rendered values decrypted, then its structured bindings on top. The trees' parts are cached
 * per minion keyed by the trees' content, the grains and the mine answers their templates used.
 */
export class PillarService {
  readonly roots: TreeBackend;
  /** ext_pillar git sources, merged over the pillar roots' pillar. */
  readonly gitPillar?: GitPillar;
  readonly bindings: BindingsService;
  private readonly cache: BoundedCache<CachedPillar>;
  /** The ext_pillar entries in config order (git sources and the others). */
  private readonly extPlan: PlanEntry[];
  /** Answers the mine.get calls of pillar templates (the master's mine); without it they fail as host calls do. */
  private mineAsk?: (id: string, calls: HostCall[]) => Promise<HostAnswer[]>;
  private readonly config: MasterConfig;
  private readonly log: Logger;
  private readonly deps: PillarServiceDeps;

  constructor(config: MasterConfig, log: Logger, deps: PillarServiceDeps) {
    this.config = config;
    this.log = log;
    this.deps = deps;
    const gitCounts: number[] = [];
    const gp = gitPillar(config, log, gitCounts);
    if (gp) this.gitPillar = gp;
    this.extPlan = extPillarPlan(config, gitCounts);
    this.roots = new FileRoots(config.pillar_roots, config.env_order, logEscape(log, 'pillar_roots'));
    const bytes = config.compile_cache_mb * 1024 * 1024;
    this.cache = new BoundedCache(config.compile_cache_size, bytes, (p) => 1024 + p.trees.reduce((n, t) => n + JSON.stringify(t.pillar).length, 0));
    this.bindings = new BindingsService(config.bindings_roots, config.bindings_categories);
  }

  get stats() {
    return { pillar_hits: this.cache.hits, pillar_misses: this.cache.misses };
  }

  /**
   * A minion's pillar: classic pillar (the pillar roots, rendered with its grains), then its
   * structured bindings merged on top (mergeWithClassicPillar). Errors of either are the
   * diagnostics; a name with a bindings error is left out.
   */
  pillar(id: string, grains: Grains, jid?: string): Promise<MinionPillar> {
    const g = { ...grains, id };
    return this.pillarOf(id, g, anonymousJson(g), jid);
  }

  /** pillar() for grains that already carry the id, with the rest of them serialised (the cache key). */
  async pillarOf(id: string, g: Grains, grainsJson: string, jid?: string): Promise<MinionPillar> {
    const snap = await treeOf(this.roots, jid);
    const gits = await this.gitPillarTrees(jid);
    const loaded = this.bindings.enabled ? this.bindings.load(jid) : undefined;
    if (this.config.ext_pillar_first && this.extPlan.length > 0) return this.pillarExtFirst(id, g, grainsJson, jid, snap, gits, loaded);
    const key = hashOf(snap.hash, ...gits.map((s) => s.hash), loaded?.hash ?? '', id, grainsJson, this.config.pillar_merge_lists);
    const hit = this.cache.get(key);
    if (hit && (await this.sameMine(id, hit.mine))) return hit.res ?? this.withExtSources(id, g, jid, loaded, hit);
    const first = await this.classicPillar(snap, id, g);
    const rest = await this.gitParts(gits, id, g);
    const entry: CachedPillar = { trees: [{ label: 'pillar_roots', ...first.result }, ...rest.trees], mine: [...first.mine, ...rest.mine] };
    // with commands or queries among the sources, only the trees' parts are kept: the rest is asked each time
    if (!this.extPlan.some((e) => e.kind === 'source')) entry.res = await this.withExtSources(id, g, jid, loaded, entry);
    this.cache.set(key, entry);
    return entry.res ?? this.withExtSources(id, g, jid, loaded, entry);
  }

  /** The git_pillar trees of job `jid` (the last update's outside a job). */
  gitPillarTrees(jid: string | undefined): Promise<TreeSnapshot[]> {
    if (!this.gitPillar) return Promise.resolve([]);
    return jid === undefined ? this.gitPillar.current() : this.gitPillar.forJob(jid);
  }

  /** The master's mine answers the mine.get calls of pillar templates (set once the mine exists). */
  useMine(ask: (id: string, calls: HostCall[]) => Promise<HostAnswer[]>): void {
    this.mineAsk = ask;
  }

  /** The git_pillar trees' parts for a minion, each compiled with its own top file. */
  private async gitParts(gits: TreeSnapshot[], id: string, g: Grains): Promise<{ trees: PillarPart[]; mine: Array<[HostCall, HostAnswer]> }> {
    const trees: PillarPart[] = [];
    const mine: Array<[HostCall, HostAnswer]> = [];
    for (const [i, git] of gits.entries()) {
      const more = await this.classicPillar(git, id, g);
      trees.push({ label: `ext_pillar:git ${this.gitPillar!.remotes[i]!.status().name}`, ...more.result });
      mine.push(...more.mine);
    }
    return { trees, mine };
  }

  /**
   * ext_pillar_first: the ext_pillar sources first, then the pillar roots rendered with their
   * values in the templates' `pillar` (Salt's opts['pillar']) and merged over them.
   */
  private async pillarExtFirst(
    id: string,
    g: Grains,
    grainsJson: string,
    jid: string | undefined,
    snap: TreeSnapshot,
    gits: TreeSnapshot[],
    loaded: LoadedTree | undefined,
  ): Promise<MinionPillar> {
    const c = this.config;
    const gitKey = hashOf('git_pillar', ...gits.map((s) => s.hash), id, grainsJson, c.pillar_merge_lists);
    let git = this.cache.get(gitKey);
    if (!git || !(await this.sameMine(id, git.mine))) this.cache.set(gitKey, (git = await this.gitParts(gits, id, g)));
    const ext = await this.extParts(id, g, git.trees);
    const seen = ext.reduce<Pillar>((acc, p) => mergeSources(acc, p.pillar, c.pillar_source_merging_strategy as MergeStrategy, c.pillar_merge_lists), {});
    // the roots' pillar depends on what the ext_pillar gave: it is cached with it
    const rootsKey = hashOf('roots', snap.hash, id, grainsJson, c.pillar_merge_lists, seen);
    let roots = this.cache.get(rootsKey);
    if (!roots || !(await this.sameMine(id, roots.mine))) {
      const first = await this.classicPillar(snap, id, g, seen);
      this.cache.set(rootsKey, (roots = { trees: [{ label: 'pillar_roots', ...first.result }], mine: first.mine }));
    }
    return this.finish(id, g, jid, loaded, roots.trees[0]!, ext);
  }

  /** The ext_pillar parts in config order: the git trees' as rendered, the other sources asked now (at once). */
  private async extParts(id: string, g: Grains, gitTrees: PillarPart[]): Promise<PillarPart[]> {
    const gitParts = [...gitTrees];
    const parts = this.extPlan.map((e): Promise<PillarPart[]> =>
      e.kind === 'git' ? Promise.resolve(gitParts.splice(0, e.count)) : this.fetchPart(e.source, id, g).then((p) => [p]),
    );
    return (await Promise.all(parts)).flat();
  }

  /** The trees' parts and the other ext_pillar sources merged in Salt's order, then the bindings on top. */
  private async withExtSources(id: string, g: Grains, jid: string | undefined, loaded: LoadedTree | undefined, cached: CachedPillar): Promise<MinionPillar> {
    const [roots, ...gitTrees] = cached.trees;
    return this.finish(id, g, jid, loaded, roots!, await this.extParts(id, g, gitTrees));
  }

  /** The parts merged in Salt's order, then the bindings on top. */
  private finish(id: string, g: Grains, jid: string | undefined, loaded: LoadedTree | undefined, roots: PillarPart, ext: PillarPart[]): MinionPillar {
    const c = this.config;
    const merged = assemblePillar(roots, ext, {
      extFirst: c.ext_pillar_first,
      strategy: c.pillar_source_merging_strategy as MergeStrategy,
      mergeLists: c.pillar_merge_lists,
    });
    if (!loaded) return { pillar: merged.pillar, diagnostics: merged.diagnostics, explain: {}, parts: merged.parts };
    const bound = this.bindings.resolve(id, g, jid, loaded);
    return {
      pillar: mergeWithClassicPillar(merged.pillar, bound.pillar),
      diagnostics: [...merged.diagnostics, ...bound.diagnostics],
      explain: bound.explain,
      parts: merged.parts,
    };
  }

  /** One ext_pillar source's pillar for a minion; a failure is that minion's pillar error naming the source (Salt's `_errors`). */
  private async fetchPart(source: ExtSource, id: string, g: Grains): Promise<PillarPart> {
    try {
      return { label: source.label, pillar: await source.fetch(id, g), diagnostics: [] };
    } catch (e) {
      const err = masterErrors.make('BRINE_ERR_MASTER_EXT_PILLAR', { source: source.label, detail: (e as Error).message });
      this.log.error({ event: 'ext_pillar_failed', minion: id, source: source.label, code: err.code }, err.message);
      return { label: source.label, pillar: {}, diagnostics: [{ severity: 'error', code: err.code, message: err.message }] };
    }
  }

  /** Whether the mine still answers what a cached pillar was rendered with. */
  private async sameMine(id: string, used: Array<[HostCall, HostAnswer]>): Promise<boolean> {
    if (used.length === 0) return true;
    if (!this.mineAsk) return false;
    const now = await this.mineAsk(
      id,
      used.map(([c]) => c),
    );
    return used.every(([, a], i) => JSON.stringify(now[i]) === JSON.stringify(a));
  }

  /** A pillar with the PGP blocks its gpg-rendered files hold decrypted here (gpg-decrypt.ts). */
  private async decryptPillar(id: string, res: PillarResult): Promise<PillarResult> {
    if (!res.gpg?.length || hasErrors(res.diagnostics)) return res;
    const plain = await this.deps.decryptor().decryptPillar(res.pillar, res.gpg);
    for (const d of plain.diagnostics) this.log.error({ event: 'pillar_gpg_failed', minion: id, code: d.code, file: d.file }, d.message);
    return { pillar: plain.pillar, diagnostics: [...res.diagnostics, ...plain.diagnostics] };
  }

  /**
   * Classic pillar, with its templates' mine.get calls answered by the mine in rounds (render,
   * answer the calls, render again); any other host call fails it as before: pillar has no host.
   */
  private async classicPillar(
    snap: TreeSnapshot,
    id: string,
    g: Grains,
    seen?: Pillar,
  ): Promise<{ result: PillarResult; mine: Array<[HostCall, HostAnswer]> }> {
    const answers = new Map<string, HostAnswer>();
    for (let round = 0; ; round++) {
      const { hostCalls = [], ...result } = await this.classicPillarOnce(snap, id, g, answers, seen);
      const missing = hostCalls.filter((c) => c.fun === 'mine.get' && !answers.has(c.key));
      if (missing.length === 0 || !this.mineAsk || round >= HOST_CALL_ROUNDS)
        return { result: await this.decryptPillar(id, result), mine: answersUsed(hostCalls, answers) };
      const got = await this.mineAsk(
        id,
        missing.map(({ fun, args, kwargs }) => ({ fun, args, kwargs })),
      );
      missing.forEach((c, i) => answers.set(c.key, got[i]!));
    }
  }

  /** One render of the classic pillar, on a compile worker (in process only for a service without a pool: never the master). */
  private async classicPillarOnce(snap: TreeSnapshot, id: string, g: Grains, answers: Map<string, HostAnswer>, seen?: Pillar): Promise<PillarResult> {
    const opts = {
      ...(seen ? { seen } : {}),
      mergeLists: this.config.pillar_merge_lists,
      strategy: this.config.pillar_source_merging_strategy as MergeStrategy,
      nodegroups: this.config.nodegroups,
      safeMatchersOnly: this.config.pillar_safe_matchers_only,
    };
    const pool = await this.deps.workers();
    if (!pool) return compilePillar(snap, { id, grains: g }, { ...opts, context: { hostAnswers: answers } });
    try {
      // key order packed across the boundary, as compile steps pack theirs
      return await pool.pillar(id, g, seen ? { ...opts, seen: packKeyOrder(seen) as Pillar } : opts, snap, answers);
    } catch (e) {
      const code = (e as { code?: string }).code;
      if (code === undefined || !POOL_FAILURES.has(code)) throw e;
      this.log.error({ event: 'compile_failed', minion: id, code }, (e as Error).message);
      return { pillar: {}, diagnostics: [{ severity: 'error', code, message: (e as Error).message }] };
    }
  }
}
