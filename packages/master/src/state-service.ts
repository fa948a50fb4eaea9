import os from 'node:os';
import path from 'node:path';
import {
  answersUsed,
  compileAsking,
  hostCallKey,
  type AskHost,
  type HostAnswer,
  type HostAnswers,
  type HostCall,
  type Compiled,
  minionOpts,
  type StateSchema,
  type ValidateReport,
  type MjsRenderer,
  type ValidateResult,
} from '@brine/compiler';
import { errorLines, hasErrors, type Diagnostic, type Grains, type HighData, type LowChunk, type Matches, type Pillar } from '@brine/core';
import type { Logger } from '@brine/core';
import type { MasterConfig } from './config.js';
import { FileRoots, type GitFs, type GitPillar, type TreeBackend, type TreeSnapshot } from '@brine/fileserver';
import { fileBackends, logEscape, treeOf } from './file-backends.js';
import { GitUpdates, type GitSource } from './git-updates.js';
import { runMasterTops, type LoadedTops } from './master-tops.js';
import type { BindingsService } from './bindings-service.js';
import { GpgDecryptor } from './gpg-decrypt.js';
import { PillarService, type MinionPillar } from './pillar-service.js';
import { treeSchema } from './state-schema.js';
import { BoundedCache, compiledBytes } from './bounded-cache.js';
import { runCompileStep, type CompileStep, type StepResult } from './compile-steps.js';
import { POOL_FAILURES, type CompilePool } from './compile-pool.js';
import { mjsRendererOf } from './mjs-renderer.js';
import { renderReactor, type ReactorRenderResult, type ReactorRenderTask } from './reactor-render.js';
import { anonymousJson, hashOf } from './cache-keys.js';

export type { MinionPillar } from './pillar-service.js';

export type CompileMode = 'top' | 'highstate' | 'sls';

export interface CompileRequest {
  mode: CompileMode;
  sls?: string[];
  saltenv?: string;
  /** show_low_sls: stop before extend/requisite_in/exclude. */
  raw?: boolean;
  /** Inline pillar given on the command line (`pillar='{...}'`), merged over the minion's. */
  pillar?: Record<string, unknown>;
  /**
   * Params for the templates (`params` in SLS files), as the operator gave them: `--params`
   * files merged in order, then `params='{...}'`. `params['missing']` fails naming the key.
   */
  params?: Record<string, unknown>;
  /** The job asking: every minion of a job compiles against one snapshot of the tree. */
  jid?: string;
  /** `brine call` asked (opts.__cli 'salt-call'), not the daemon's job ('salt-minion'). */
  call?: boolean;
  /** The job runs with test=True (opts.test). */
  test?: boolean;
}

/** `brine validate --minion`: validateSls's report, rendered on the master for that minion. */
export interface ValidateReply {
  report: ValidateReport;
  diagnostics: Diagnostic[];
  failed: boolean;
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

/** One compile's inputs, worked out by compile() before the caches are looked at. */
interface CompileJob {
  id: string;
  grains: Grains;
  grainsJson: string;
  pillar: Pillar;
  pillarJson: string;
  req: CompileRequest;
  ext: Matches;
  snap: TreeSnapshot;
  key: string;
  fail: (raw: Diagnostic[], matches?: Matches) => CompileReply;
  answers: Map<string, HostAnswer>;
  ask?: AskHost;
}

/** A cached compile and the host answers it was rendered with (reused only while the host answers alike). */
interface Cached {
  reply: CompileReply;
  host: Array<[HostCall, HostAnswer]>;
}

/**
 * The master's side of a highstate: per minion, its compiled state from the file roots, top
 * files and master_tops, rendered with its pillar (PillarService). Results are cached per minion
 * keyed by the tree's content, the grains, the pillar and the request, so repeated runs of an
 * unchanged tree do not render again.
 */
export class StateService {
  readonly files: TreeBackend;
  readonly pillars: TreeBackend;
  /** gitfs, when fileserver_backend names it (updated by the master's timer and the webhook). */
  readonly gitfs?: GitFs;
  /** ext_pillar git sources, merged over the pillar roots' pillar. */
  readonly gitPillar?: GitPillar;
  /** The git remotes of both, fetched on a timer and on demand. */
  readonly git: GitUpdates;
  private readonly compiled: BoundedCache<Cached>;
  /** Compiles that never read the minion id, shared by every minion of the same shape. */
  private readonly shared: BoundedCache<Cached>;
  /** Host answers per job and minion: within a job the same call is asked once. */
  private readonly jobAnswers: BoundedCache<Map<string, HostAnswer>>;
  /** Every minion's pillar (pillar roots, ext_pillar, bindings), which its compiles render with. */
  readonly pillarService: PillarService;
  private schema: { hash: string; schema: StateSchema } | undefined;
  readonly bindings: BindingsService;
  /** Answers the `#!mjs` renders of a compile (mjs_renderer), in front of the host it asks. */
  readonly mjs: MjsRenderer;

  private readonly config: MasterConfig;
  private readonly tops: LoadedTops;
  private readonly log: Logger;
  constructor(config: MasterConfig, tops: LoadedTops, log: Logger) {
    this.config = config;
    this.tops = tops;
    this.log = log;
    this.mjs = mjsRendererOf(config);
    const backends = fileBackends(config, log, new FileRoots(config.file_roots, config.env_order, logEscape(log, 'file_roots')));
    this.files = backends.files;
    if (backends.gitfs) this.gitfs = backends.gitfs;
    this.pillarService = new PillarService(config, log, { workers: () => this.workers(), decryptor: () => this.decryptor() });
    this.pillars = this.pillarService.roots;
    if (this.pillarService.gitPillar) this.gitPillar = this.pillarService.gitPillar;
    this.bindings = this.pillarService.bindings;
    this.git = new GitUpdates(this.gitSources(), log);
    const bytes = config.compile_cache_mb * 1024 * 1024;
    this.compiled = new BoundedCache<Cached>(config.compile_cache_size, bytes, compiledBytes);
    this.shared = new BoundedCache<Cached>(config.compile_cache_size, bytes, compiledBytes);
    this.jobAnswers = new BoundedCache(Math.max(64, config.compile_cache_size), bytes, (m) => 256 + m.size * 512);
  }

  /** The git remotes to fetch (gitfs, git_pillar), by kind. */
  private gitSources(): Array<[string, GitSource]> {
    const out: Array<[string, GitSource]> = [];
    if (this.gitfs) out.push(['gitfs', this.gitfs]);
    if (this.gitPillar) out.push(['git_pillar', this.gitPillar]);
    return out;
  }

  get stats() {
    return {
      compile_hits: this.compiled.hits,
      compile_misses: this.compiled.misses,
      shared_hits: this.shared.hits,
      ...this.pillarService.stats,
    };
  }

  /** A minion's pillar (PillarService.pillar). */
  pillar(id: string, grains: Grains, jid?: string): Promise<MinionPillar> {
    return this.pillarService.pillar(id, grains, jid);
  }

  /** The master's mine answers the mine.get calls of pillar templates (set once the mine exists). */
  useMine(ask: (id: string, calls: HostCall[]) => Promise<HostAnswer[]>): void {
    this.pillarService.useMine(ask);
  }

  private gpg?: GpgDecryptor;

  /** The master's view of a minion's options (templates' `opts`): nothing of the master's own but its host name. */
  private optsFor(grains: Grains, req: CompileRequest): Record<string, unknown> {
    return minionOpts({
      cli: req.call ? 'salt-call' : 'salt-minion',
      fileClient: 'remote',
      saltenv: req.saltenv ?? null,
      test: !!req.test,
      master: typeof grains.master === 'string' ? grains.master : os.hostname(),
      stateTop: this.config.state_top,
      defaultTop: this.config.default_top,
    });
  }

  private decryptor(): GpgDecryptor {
    return (this.gpg ??= new GpgDecryptor({ keydir: this.config.gpg_keydir || path.join(this.config.data_dir, 'gpgkeys') }));
  }

  /** The blocks of `#!...|gpg` state files decrypted in a compile's high data and chunks, or the compile failed. */
  private async decryptCompiled(c: Compiled, blocks: Array<[string, string]>, id: string): Promise<void> {
    const out = await this.decryptor().decryptIn([c.rawHigh, c.low], blocks, 'state');
    for (const d of out.diagnostics) this.log.error({ event: 'compile_gpg_failed', minion: id, code: d.code, file: d.file }, d.message);
    if (out.diagnostics.length > 0) {
      c.failed = true;
      c.diagnostics.push(...out.diagnostics);
      return;
    }
    c.rawHigh = out.values[0] as Compiled['rawHigh'];
    c.low = out.values[1] as Compiled['low'];
  }

  /** The content hash of the state and pillar trees a job compiles against (a cluster compares it). */
  async treeHash(jid?: string): Promise<string> {
    const [files, pillars, gits] = await Promise.all([treeOf(this.files, jid), treeOf(this.pillars, jid), this.pillarService.gitPillarTrees(jid)]);
    return gits.length ? hashOf('tree', files.hash, pillars.hash, ...gits.map((s) => s.hash)) : hashOf('tree', files.hash, pillars.hash);
  }

  /** The state names a snapshot's states may use: one schema per tree hash. */
  private schemaOf(snap: TreeSnapshot): StateSchema {
    if (this.schema?.hash !== snap.hash) this.schema = { hash: snap.hash, schema: treeSchema(snap) };
    return this.schema.schema;
  }

  /** The answers known for this job and minion (a fresh table outside a job). */
  private answersFor(id: string, jid: string | undefined): Map<string, HostAnswer> {
    return (jid === undefined ? undefined : this.jobAnswers.get(`${jid}\0${id}`)) ?? new Map();
  }

  /** Keeps the job's answers once there are any (set again: the cache weighs an entry when it is set). */
  private keepAnswers(id: string, jid: string | undefined, answers: Map<string, HostAnswer>): void {
    if (jid !== undefined && answers.size > 0) this.jobAnswers.set(`${jid}\0${id}`, answers);
  }

  /**
   * Whether the host still answers what a cached compile was rendered with: the calls it made
   * are asked again (those this job has answered already are not), and every answer must be the
   * same. A compile that made no host calls is always good.
   */
  private async sameHost(entry: Cached, answers: Map<string, HostAnswer>, ask: AskHost | undefined): Promise<boolean> {
    if (entry.host.length === 0) return true;
    const toAsk = entry.host.filter(([c]) => !answers.has(hostCallKey(c))).map(([c]) => c);
    if (toAsk.length > 0) {
      if (!ask) return false;
      let got: HostAnswer[];
      try {
        got = await ask(toAsk);
      } catch {
        return false;
      }
      if (!Array.isArray(got) || got.length !== toAsk.length) return false;
      toAsk.forEach((c, i) => answers.set(hostCallKey(c), got[i]!));
    }
    return entry.host.every(([c, a]) => JSON.stringify(answers.get(hostCallKey(c))) === JSON.stringify(a));
  }

  /**
   * The compile workers. The master always has some: templates are untrusted and never render on
   * its event loop. Without a pool (tests, library use) steps run in process.
   */
  private pool?: CompilePool;
  private poolReady?: Promise<CompilePool>;
  private resolvePool?: (pool: CompilePool) => void;

  /**
   * The master's mode: every render waits for the compile workers, also one asked for (by a
   * minion or a runner) between the ports opening and the workers starting, never in process.
   */
  requirePool(): void {
    this.poolReady = new Promise((resolve) => (this.resolvePool = resolve));
  }

  usePool(pool: CompilePool | undefined): void {
    this.pool = pool;
    if (pool) this.resolvePool?.(pool);
  }

  /** A reactor file for an event, rendered on a worker (waiting for the workers to start). */
  async renderReactor(task: ReactorRenderTask): Promise<ReactorRenderResult> {
    const pool = await this.workers();
    return pool ? pool.reactor(task) : renderReactor(task);
  }

  private async workers(): Promise<CompilePool | undefined> {
    return this.pool ?? (this.poolReady ? await this.poolReady : undefined);
  }

  /** One compile step, on a worker against the job's snapshot. */
  private async step(step: CompileStep, snap: TreeSnapshot, answers: HostAnswers): Promise<StepResult> {
    const pool = await this.workers();
    if (pool) return pool.run(step, snap, answers as Map<string, HostAnswer>);
    return runCompileStep(step, snap, this.schemaOf(snap), answers as Map<string, HostAnswer>);
  }

  /**
   * Compiles for minion `id`. Host calls of its templates go to `ask` (its own host, over its
   * channel), once per job for the same call; without `ask` such a compile fails naming the call.
   */
  async compile(id: string, rawGrains: Grains, req: CompileRequest, ask?: AskHost): Promise<CompileReply> {
    const grains = { ...rawGrains, id };
    // grains and pillar go into two cache keys: serialised once each
    const grainsJson = anonymousJson(grains);
    const pil = await this.pillarService.pillarOf(id, { ...grains }, grainsJson, req.jid);
    const pillar = req.pillar ? { ...pil.pillar, ...req.pillar } : pil.pillar;
    const fail = (raw: Diagnostic[], matches: Matches = {}): CompileReply => {
      return { matches, high: {}, low: [], diagnostics: raw, errors: errorLines(raw), failed: true, pillar, cached: false };
    };
    if (hasErrors(pil.diagnostics)) return fail(pil.diagnostics);
    let ext: Matches = {};
    if (req.mode !== 'sls' && (this.tops.plugins.length || this.tops.errors.length)) {
      const t = await runMasterTops(this.tops, id, grains);
      if (t.diagnostics.length) {
        for (const d of t.diagnostics) this.log.warn({ minion: id, code: d.code }, d.message);
        return fail(t.diagnostics);
      }
      ext = t.matches;
    }
    const snap = await treeOf(this.files, req.jid);
    const pillarJson = JSON.stringify(pillar);
    const key = hashOf(
      snap.hash,
      id,
      grainsJson,
      pillarJson,
      ext,
      req.mode,
      req.sls ?? [],
      req.saltenv ?? '',
      !!req.raw,
      this.config.top_file_merging_strategy,
      req.params ?? {},
      !!req.call,
      !!req.test,
    );
    const answers = this.answersFor(id, req.jid);
    try {
      return await this.compileWith({ id, grains, grainsJson, pillar, pillarJson, req, ext, snap, key, fail, answers, ...(ask ? { ask } : {}) });
    } finally {
      this.keepAnswers(id, req.jid, answers);
    }
  }

  /** compile() once the pillar, master_tops, snapshot and cache key are known. */
  private async compileWith(job: CompileJob): Promise<CompileReply> {
    const { id, grains, grainsJson, pillar, pillarJson, req, ext, snap, key, fail, answers, ask } = job;
    const asking = { answers, minion: id, ...(ask ? { ask } : {}) };
    const hit = this.compiled.get(key);
    if (hit && (await this.sameHost(hit, answers, ask))) return { ...hit.reply, cached: true };
    const base: Omit<CompileStep, 'op'> = {
      id,
      grains,
      pillar,
      ext,
      raw: !!req.raw,
      params: req.params ?? {},
      strategy: this.config.top_file_merging_strategy,
      defaultTop: this.config.default_top,
      stateTop: this.config.state_top,
      nodegroups: this.config.nodegroups,
      ...(req.saltenv ? { saltenv: req.saltenv } : {}),
      ...(req.sls ? { sls: req.sls } : {}),
      opts: this.optsFor(grains, req),
    };
    let idRead = true;
    let gpg: StepResult['gpg'];
    const run = (step: CompileStep) => async (hostAnswers: HostAnswers) => {
      const r = await this.step(step, snap, hostAnswers);
      idRead = r.idRead;
      gpg = r.gpg;
      return r.result as Exclude<StepResult['result'], ValidateResult>;
    };
    let entry: Cached;
    try {
      if (req.mode === 'top') {
        const asked = await compileAsking(run({ ...base, op: 'top' }), asking);
        const top = asked.result;
        const failed = hasErrors(top.diagnostics);
        const reply = failed
          ? fail(top.diagnostics, top.matches)
          : { matches: top.matches, high: {}, low: [], diagnostics: top.diagnostics, errors: [], failed: false, pillar, cached: false };
        entry = { reply, host: answersUsed(top.hostCalls, asked.answers) };
      } else {
        // The matches come from the top files (per minion: targets name ids); what they select is
        // then rendered once per shape (tree, grains but the id, pillar, matches, request) unless a
        // template reads the id. A fleet of identical minions renders each SLS once; a compile
        // that asked the host is shared only with minions whose hosts give the same answers.
        let topHost: Array<[HostCall, HostAnswer]> = [];
        let top: { matches: Matches; diagnostics: Diagnostic[] } | undefined;
        if (req.mode !== 'sls') {
          const asked = await compileAsking(run({ ...base, op: 'top' }), asking);
          top = asked.result;
          topHost = answersUsed(asked.result.hostCalls, asked.answers);
        }
        if (top && hasErrors(top.diagnostics)) return fail(top.diagnostics, top.matches);
        const matches = top ? top.matches : { [req.saltenv ?? 'base']: req.sls ?? [] };
        const shapeKey = hashOf('shape', snap.hash, grainsJson, pillarJson, ext, matches, req.mode, !!req.raw, req.params ?? {}, base.opts ?? {});
        const shared = this.shared.get(shapeKey);
        if (shared && (await this.sameHost(shared, answers, ask))) {
          this.compiled.set(key, { reply: shared.reply, host: [...topHost, ...shared.host] });
          return { ...shared.reply, cached: true };
        }
        const asked = await compileAsking(run({ ...base, op: req.mode === 'sls' ? 'sls' : 'matches', matches }), asking);
        const c = asked.result as Compiled;
        if (top) c.diagnostics.unshift(...top.diagnostics);
        if (gpg?.length && !c.failed) await this.decryptCompiled(c, gpg, id);
        const reply = c.failed
          ? fail(c.diagnostics, c.matches)
          : { matches: c.matches, high: c.rawHigh, low: c.low, diagnostics: c.diagnostics, errors: [], failed: false, pillar, cached: false };
        const host = answersUsed(c.hostCalls, asked.answers);
        if (!c.failed && !idRead) this.shared.set(shapeKey, { reply, host });
        entry = { reply, host: [...topHost, ...host] };
      }
    } catch (e) {
      // a compile worker that died (memory, watchdog) fails this compile only, with the file it was on
      const code = (e as { code?: string }).code;
      if (code === undefined || !POOL_FAILURES.has(code)) throw e;
      this.log.error({ event: 'compile_failed', minion: id, code }, (e as Error).message);
      return fail([{ severity: 'error', code, message: (e as Error).message }]);
    }
    // a compile that could not reach the host is not kept: the next one asks again
    if (!entry.reply.failed || !entry.reply.diagnostics.some((d) => d.code.startsWith('BRINE_ERR_COMPILE_HOST_'))) this.compiled.set(key, entry);
    return entry.reply;
  }

  /**
   * Renders `sls` for one minion (its grains and pillar) with recording params: the report of
   * `brine validate`, diagnostics naming the files as they are on the master.
   */
  async validate(id: string, rawGrains: Grains, sls: string[], saltenv = 'base', ask?: AskHost): Promise<ValidateReply> {
    const grains = { ...rawGrains, id };
    const pil = await this.pillar(id, grains);
    const snap = await this.files.fresh();
    const step: CompileStep = {
      op: 'validate',
      id,
      grains,
      pillar: pil.pillar,
      ext: {},
      raw: false,
      params: {},
      strategy: this.config.top_file_merging_strategy,
      defaultTop: this.config.default_top,
      stateTop: this.config.state_top,
      nodegroups: this.config.nodegroups,
      saltenv,
      sls,
    };
    // rendered on a worker like any compile (a worker that fails answers with its coded error)
    const { result: res } = await compileAsking(async (hostAnswers) => (await this.step(step, snap, hostAnswers)).result as ValidateResult, {
      minion: id,
      ...(ask ? { ask } : {}),
    });
    const onDisk = (d: Diagnostic): Diagnostic => {
      const f = d.file ? snap.lookup(d.env ?? saltenv, d.file) : undefined;
      return f ? { ...d, file: f.abs } : d;
    };
    const pillarErrors = pil.diagnostics.filter((d) => d.severity === 'error');
    return {
      report: res.report,
      diagnostics: [...pillarErrors, ...res.diagnostics.map(onDisk)],
      failed: res.failed || pillarErrors.length > 0,
    };
  }
}
