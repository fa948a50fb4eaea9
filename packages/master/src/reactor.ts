import { randomUUID } from 'node:crypto';
import type { Logger } from '@brine/core';
import { masterErrors } from './errors.js';
import type { BusEvent, EventBus } from './event-bus.js';
import { reactionsOf, type Reaction } from './reactions.js';
import type { ReactorRenderResult, ReactorRenderTask } from './reactor-render.js';
import { matchRules, RuleRate, saltDataOf, type ReactorRule, type RuleMatch } from './reactor-rules.js';
import type { RunRunner } from './runners.js';
import type { StoreBackend } from './store-backend.js';

export interface ReactorDeps {
  rules: ReactorRule[];
  bus: EventBus;
  store: Pick<StoreBackend, 'claimReaction' | 'noteReactorJob' | 'reactorDepthOf'>;
  /** This master's name in a cluster (recorded with its claims). */
  masterId: string | null;
  /** Renders a reactor file on a compile worker (never on the event loop). */
  render: (task: ReactorRenderTask) => Promise<ReactorRenderResult>;
  /** A reactor file's text: an absolute path, or salt:// from the state tree. */
  readFile: (ref: string) => Promise<string>;
  /** Publishes a job (local.* reactions). */
  publish: (req: {
    tgt: string | string[];
    tgt_type: string;
    fun: string;
    arg: unknown[];
    kwarg: Record<string, unknown>;
    user: string;
  }) => Promise<{ jid: string }>;
  /** wheel.key.accept / reject / delete. */
  wheelKey: (action: 'accept' | 'reject' | 'delete', match: string, kwarg: Record<string, unknown>) => Promise<unknown>;
  /** The master's runners (`runners.ts`): `runner.*` reactions. */
  runRunner?: RunRunner;
  maxDepth: number;
  rate: number;
  log: Logger;
}

/** The user reactions' jobs run as (Salt's is `Reactor`). */
export const REACTOR_USER = 'reactor';
/** Jobs whose chain depth is kept in memory (the store keeps them all, for the other masters). */
const REMEMBERED_JOBS = 10_000;

/**
 * Salt's reactor: each event this master fires is matched against the `reactor:` rules (under
 * its Brine and its Salt name); a matching rule's files are rendered with `tag` and `data` on a
 * compile worker and their reactions run: `local.*` as jobs of user `reactor`, `runner.*` through
 * the runner interface, `wheel.key.*` on the keys.
 *
 * Once per event in a cluster: only the master that fired an event reacts (the others get it
 * with an `origin` and leave it), and it first claims the event in the store under its `once`
 * key, so an occurrence fired on two masters (a return or a minion's event resent after a
 * failover) reacts on the first only.
 *
 * Loops: a job a reaction published is recorded with its chain depth; an event that names such a
 * job (`data.jid`: its new/ret events, an event.send from inside it) reacts one level deeper, and
 * past `reactor_max_depth` it does not. A rule also reacts at most `reactor_rate` times a minute
 * on this master (a loop the depth cannot see). Both are logged with a coded error.
 */
export class Reactor {
  private readonly deps: ReactorDeps;
  private readonly rate: RuleRate;
  private readonly depths = new Map<string, number>();
  private seq = 0;
  private off: (() => void) | undefined;
  /** Reactions under way (tests and close wait on them). */
  private readonly running = new Set<Promise<void>>();
  stats = { reactions: 0, stopped_loops: 0, rate_limited: 0, failed: 0 };

  constructor(deps: ReactorDeps) {
    this.deps = deps;
    this.rate = new RuleRate(deps.rate);
  }

  start(): void {
    if (this.deps.rules.length === 0) return;
    this.off = this.deps.bus.subscribe('*', (ev) => this.onEvent(ev));
  }

  private onEvent(ev: BusEvent): void {
    // another master fired it: that master reacts
    if (ev.origin) return;
    const matches = matchRules(this.deps.rules, ev.tag);
    if (matches.length === 0) return;
    const p = this.react(ev, matches).catch((err: unknown) => {
      this.stats.failed++;
      this.deps.log.error({ event: 'reactor_failed', tag: ev.tag, err: (err as Error).message }, `reactor: event ${ev.tag}: ${(err as Error).message}`);
    });
    this.running.add(p);
    // p never rejects (caught above)
    p.then(
      () => this.running.delete(p),
      () => this.running.delete(p),
    );
  }

  /** The chain depth a reaction to this event would have: one more than the reaction job it names. */
  private async depthOf(ev: BusEvent): Promise<number> {
    const jid = (ev.data as { jid?: unknown } | null)?.jid;
    if (typeof jid !== 'string') return 1;
    const parent = this.depths.get(jid) ?? (await this.deps.store.reactorDepthOf(jid));
    return (parent ?? 0) + 1;
  }

  private async react(ev: BusEvent, matches: RuleMatch[]): Promise<void> {
    const depth = await this.depthOf(ev);
    const once = ev.once ?? `${this.deps.masterId ?? 'master'}/${ev.stamp}/${randomUUID()}/${this.seq++}`;
    for (const m of matches) {
      const rule = m.rule.glob;
      if (depth > this.deps.maxDepth) {
        this.stats.stopped_loops++;
        const e = masterErrors.make('BRINE_ERR_MASTER_REACTOR_LOOP', { rule, tag: ev.tag, depth: depth - 1, max: this.deps.maxDepth });
        this.deps.log.error({ event: 'reactor_loop_stopped', code: e.code, rule, tag: ev.tag, depth }, e.message);
        continue;
      }
      if (!this.rate.take(rule)) {
        this.stats.rate_limited++;
        const e = masterErrors.make('BRINE_ERR_MASTER_REACTOR_RATE', { rule, tag: ev.tag, count: this.rate.count(rule), rate: this.deps.rate });
        this.deps.log.error({ event: 'reactor_rate_limited', code: e.code, rule, tag: ev.tag }, e.message);
        continue;
      }
      if (!(await this.deps.store.claimReaction(`${once}|${rule}`, ev.tag, this.deps.masterId, depth))) {
        this.deps.log.debug({ event: 'reaction_claimed_elsewhere', tag: ev.tag, rule }, 'reactor: event already reacted to');
        continue;
      }
      const data = m.tag === ev.tag ? ev.data : saltDataOf(m.tag, ev.data);
      for (const file of m.rule.files) await this.reactFile(file, m.tag, data, depth);
    }
  }

  private async reactFile(file: string, tag: string, data: unknown, depth: number): Promise<void> {
    const { log } = this.deps;
    let rendered: ReactorRenderResult;
    try {
      const text = await this.deps.readFile(file);
      rendered = await this.deps.render({ file, text, tag, data });
    } catch (err) {
      rendered = { lines: {}, errors: [(err as Error).message] };
    }
    if (!rendered.high) {
      this.stats.failed++;
      const e = masterErrors.make('BRINE_ERR_MASTER_REACTOR_RENDER', { file, tag, detail: rendered.errors.join('; ') });
      log.error({ event: 'reactor_render_failed', code: e.code, file, tag }, e.message);
      return;
    }
    const { reactions, errors } = reactionsOf(rendered.high, file, (id) => rendered.lines[id] ?? 1);
    for (const err of errors) this.failed({ id: err.id, file, line: err.line, fun: '-' }, tag, err.message);
    for (const r of reactions) {
      try {
        await this.run(r, tag, depth);
      } catch (err) {
        this.failed(r, tag, (err as Error).message);
      }
    }
  }

  private failed(r: Pick<Reaction, 'id' | 'file' | 'line'> & { fun: string }, tag: string, detail: string): void {
    this.stats.failed++;
    const e = masterErrors.make('BRINE_ERR_MASTER_REACTOR_REACTION', { file: r.file, line: r.line, id: r.id, fun: r.fun, tag, detail });
    this.deps.log.error({ event: 'reaction_failed', code: e.code, file: r.file, line: r.line, tag }, e.message);
  }

  private async run(r: Reaction, tag: string, depth: number): Promise<void> {
    const fun = `${r.kind}.${r.fun}`;
    if (r.kind === 'local') {
      const { jid } = await this.deps.publish({ tgt: r.tgt!, tgt_type: r.tgt_type ?? 'glob', fun: r.fun, arg: r.arg, kwarg: r.kwarg, user: REACTOR_USER });
      await this.noteJob(jid, tag, depth);
      this.reacted(r, fun, tag, depth, jid);
      return;
    }
    if (r.kind === 'wheel') {
      const action = /^key\.(accept|reject|delete)$/.exec(r.fun)?.[1] as 'accept' | 'reject' | 'delete' | undefined;
      if (!action) throw new Error(`wheel.${r.fun} is not available (Brine's wheel reactions: key.accept, key.reject, key.delete)`);
      const match = r.kwarg.match ?? r.arg[0];
      if (typeof match !== 'string') throw new Error(`${fun} needs a match: - args:\n    - match: <minion id glob>`);
      await this.deps.wheelKey(action, match, r.kwarg);
      this.reacted(r, fun, tag, depth);
      return;
    }
    const runner = this.deps.runRunner;
    if (!runner) {
      const e = masterErrors.make('BRINE_ERR_MASTER_REACTOR_NO_RUNNER', { file: r.file, line: r.line, fun });
      throw Object.assign(new Error(e.message), { code: e.code });
    }
    this.reacted(r, fun, tag, depth);
    // a runner (an orchestration) runs long: the reaction does not wait for it, as in Salt
    runner({ fun: r.fun, arg: r.arg, kwarg: r.kwarg, user: REACTOR_USER }).then(
      (out) => this.noteJob(out.jid, tag, depth),
      (err: unknown) => this.failed({ ...r, fun }, tag, (err as Error).message),
    );
  }

  private async noteJob(jid: string, tag: string, depth: number): Promise<void> {
    this.depths.set(jid, depth);
    if (this.depths.size > REMEMBERED_JOBS) this.depths.delete(this.depths.keys().next().value!);
    await this.deps.store.noteReactorJob(jid, tag, depth);
  }

  private reacted(r: Reaction, fun: string, tag: string, depth: number, jid?: string): void {
    this.stats.reactions++;
    this.deps.log.info(
      { event: 'reaction', tag, file: r.file, line: r.line, id: r.id, fun, depth, ...(jid ? { jid } : {}) },
      `reactor: ${r.id} (${fun}) for ${tag}${jid ? `: job ${jid}` : ''}`,
    );
  }

  /** Resolves once the reactions under way have run (tests; close). */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.all([...this.running]);
  }

  async close(): Promise<void> {
    this.off?.();
    await this.idle();
  }
}
