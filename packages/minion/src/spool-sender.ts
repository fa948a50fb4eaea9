import type { Logger } from '@brine/core';
import { encode, parseFrame, type Body, type ErrorMsg, type MinionToMaster, type StateResultItem } from '@brine/protocol';
import { minionErrors } from './errors.js';
import type { ResultSpool, SpooledReturn } from './spool.js';
import { batchByBytes, FRAME_ROOM, trimStateItem, trimToFit } from './trim.js';

/** Refusals of one job's return (or of its state results) before they are quarantined. */
export const SPOOL_MAX_REFUSALS = 3;

type Kind = 'ret' | 'state_results';

export interface SpoolSenderDeps {
  spool: ResultSpool;
  log: Logger;
  /** Sends an encoded frame; false while disconnected. */
  sendFrame(text: string): boolean;
  connected(): boolean;
  /** The frame limit (the smaller of ours and the master's) and the result budget (max_event_size). */
  limits(): { frame: number; event: number };
  emit(event: string, ...args: unknown[]): void;
}

/**
 * What goes from the spool to the master. State results and returns are trimmed to the budget
 * before they are spooled, state results go in frames batched by bytes, and every frame is
 * checked with the protocol's own validator before it leaves: one the master would refuse for
 * good is quarantined at once instead of being resent on every reconnect. A refusal from the
 * master names the job: its items are trimmed further and sent again, and quarantined after
 * SPOOL_MAX_REFUSALS refusals. Nothing here closes the connection.
 */
export class SpoolSender {
  private readonly deps: SpoolSenderDeps;
  constructor(deps: SpoolSenderDeps) {
    this.deps = deps;
  }

  /** Spools a job's new state results (trimmed to fit) and sends them. */
  streamStates(jid: string, fun: string, items: StateResultItem[]): void {
    const fitted = this.fitStates(jid, fun, items, this.deps.limits().event);
    this.deps.spool.putStates(jid, fun, fitted);
    if (this.deps.connected()) this.sendStates(jid, fun, fitted);
  }

  /** Spools a job's return (trimmed to fit), ending the job, and sends it; true when sent. */
  finish(ret: SpooledReturn): boolean {
    const fitted = this.fitReturn(ret, this.deps.limits().event);
    this.deps.spool.finish(fitted);
    return this.deps.connected() && this.sendReturn(fitted);
  }

  /**
   * A job that runs within its admission (a pure function): its return (trimmed to fit) held by
   * the spool until acked (ResultSpool.hold), then sent; undefined when the job was received before.
   */
  admitFinished(jid: string, at: string, make: () => SpooledReturn): { ret: SpooledReturn; sent: boolean } | undefined {
    const ret = this.deps.spool.hold(jid, at, () => this.fitReturn(make(), this.deps.limits().event));
    if (!ret) return undefined;
    if (!this.deps.connected()) return { ret, sent: false };
    // a scalar return (test.ping's) is not checked with the validator like other frames: the
    // frame is made of checked parts (the job frame's jid and fun, a boolean, an integer, ISO
    // times) and a value trimmed to the budget, so the master takes it; the check parsed it again
    const scalar = typeof ret.return !== 'object' || ret.return === null;
    return { ret, sent: scalar ? this.deps.sendFrame(encode({ type: 'ret', ...ret })) : this.sendReturn(ret) };
  }

  /** After a welcome: every unacknowledged state result, then every return (refitted to this master's limit). */
  resendAll(): { states: number; rets: number } {
    const { event } = this.deps.limits();
    let states = 0;
    for (const g of this.deps.spool.pendingStates((jid, why, n) => this.quarantine(jid, 'state_results', `spooled state result ${n} is ${why}`, [n]))) {
      const fitted = this.fitStates(g.jid, g.fun, g.results, event, true);
      this.sendStates(g.jid, g.fun, fitted);
      states += fitted.length;
    }
    const rets = this.deps.spool.pending((jid, why) => this.quarantine(jid, 'ret', `the spooled return is ${why}`));
    for (const ret of rets) this.sendReturn(this.fitReturn(ret, event, true));
    return { states, rets: rets.length };
  }

  /**
   * The master refused a result frame of a job (`refused`, `jid`): trims that job's items to
   * half the budget of the last try and sends them again, or quarantines them once refused
   * SPOOL_MAX_REFUSALS times. False when the error is not such a refusal.
   */
  onRefusal(msg: Pick<ErrorMsg, 'code' | 'message' | 'jid' | 'refused' | 'limit'>): boolean {
    const kind = msg.refused;
    if (msg.jid === undefined || (kind !== 'ret' && kind !== 'state_results')) return false;
    const { spool, log } = this.deps;
    const n = spool.refused(msg.jid, kind);
    if (n >= SPOOL_MAX_REFUSALS) {
      this.quarantine(msg.jid, kind, `refused ${n} times by the master (${msg.code}: ${msg.message})`);
      return true;
    }
    const frame = Math.min(this.deps.limits().frame, msg.limit ?? Infinity);
    const budget = Math.max(1024, Math.floor((frame - FRAME_ROOM) / 2 ** n));
    log.warn(
      { event: 'result_refused', jid: msg.jid, refused: kind, code: msg.code, refusals: n, budget },
      `the master refused the ${kind} of job ${msg.jid}: sending it again trimmed to ${budget} bytes`,
    );
    if (kind === 'ret') {
      const ret = spool.pendingOf(msg.jid, (jid, why) => this.quarantine(jid, 'ret', `the spooled return is ${why}`));
      if (ret) this.sendReturn(this.fitReturn(ret, budget, true));
    } else {
      for (const g of spool.pendingStates((jid, why, r) => this.quarantine(jid, kind, `spooled state result ${r} is ${why}`, [r]), msg.jid)) {
        this.sendStates(g.jid, g.fun, this.fitStates(g.jid, g.fun, g.results, budget, true), budget);
      }
    }
    return true;
  }

  private fitReturn(ret: SpooledReturn, budget: number, respool = false): SpooledReturn {
    const { value, dropped } = trimToFit(ret.return, budget, this.deps.limits().event);
    if (dropped === 0) return ret;
    this.deps.log.warn(
      { event: 'result_trimmed', jid: ret.jid, dropped, budget },
      `the return of job ${ret.jid} is trimmed by ${dropped} bytes to fit ${budget} bytes`,
    );
    const fitted = { ...ret, return: value };
    if (respool) this.deps.spool.put(fitted);
    return fitted;
  }

  private fitStates(jid: string, fun: string, items: StateResultItem[], budget: number, respool = false): StateResultItem[] {
    const limit = this.deps.limits().event;
    const fitted = items.map((it) => trimStateItem(it, budget, limit));
    const trimmed = fitted.filter((it, i) => it !== items[i]);
    if (trimmed.length === 0) return fitted;
    this.deps.log.warn(
      { event: 'result_trimmed', jid, run_nums: trimmed.map((it) => it.run_num).slice(0, 20), budget },
      `${trimmed.length} state result(s) of job ${jid} trimmed to fit ${budget} bytes`,
    );
    if (respool) this.deps.spool.putStates(jid, fun, trimmed);
    return fitted;
  }

  private sendStates(jid: string, fun: string, items: StateResultItem[], budget?: number): void {
    const frame = this.deps.limits().frame;
    for (const batch of batchByBytes(items, Math.min(frame, budget ?? frame) - FRAME_ROOM)) {
      this.sendChecked({ type: 'state_results', jid, fun, results: batch }, jid, 'state_results', batch);
    }
  }

  private sendReturn(ret: SpooledReturn): boolean {
    return this.sendChecked({ type: 'ret', ...ret }, ret.jid, 'ret');
  }

  /** Sends a frame the protocol accepts; quarantines what it never would (checked item by item). */
  private sendChecked(msg: Body<MinionToMaster>, jid: string, kind: Kind, items?: StateResultItem[]): boolean {
    const text = encode(msg);
    const r = parseFrame(text, this.deps.limits().frame);
    if (r.ok) return this.deps.sendFrame(text);
    if (kind === 'ret' || !items) {
      this.quarantine(jid, kind, `the master would refuse it: ${r.error.message}`);
      return false;
    }
    // find the state results at fault; the others go on
    const fun = (msg as { fun: string }).fun;
    const good: StateResultItem[] = [];
    for (const it of items) {
      const one = parseFrame(encode({ type: 'state_results', jid, fun, results: [it] }), this.deps.limits().frame);
      if (one.ok) good.push(it);
      else this.quarantine(jid, kind, `the master would refuse it: ${one.error.message}`, [it.run_num]);
    }
    return good.length === 0 || this.deps.sendFrame(encode({ type: 'state_results', jid, fun, results: good }));
  }

  private quarantine(jid: string, kind: Kind, reason: string, runNums?: number[]): void {
    const file = this.deps.spool.quarantine(jid, kind, reason, runNums);
    const e = minionErrors.make('BRINE_ERR_MINION_SPOOL_QUARANTINED', { what: kind === 'ret' ? 'return' : 'state results', jid, file, reason });
    this.deps.log.error({ event: 'spool_quarantined', code: e.code, jid, kind, file }, e.message);
    this.deps.emit('quarantined', jid, kind);
  }
}
