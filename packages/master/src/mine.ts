import { checkTarget, matchTarget, TARGET_TYPES, type AskHost, type TargetType } from '@brine/compiler';
import { BrineError, isDict, type Grains, type Pillar } from '@brine/core';
import { checkJsonBounds, MAX_DATA_DEPTH, MINE_MAX_FUNCTIONS, MINE_MAX_VALUE_BYTES, type HostCallAnswer, type HostCallItem } from '@brine/protocol';
import { masterErrors } from './errors.js';
import type { StoreBackend } from './store-backend.js';
import { setImmediate as nextTurn } from 'node:timers/promises';

/** The mine's bounds (the protocol's, which the minion applies before it pushes). */
export { MINE_MAX_FUNCTIONS, MINE_MAX_VALUE_BYTES };

/** A function or alias name (`network.ip_addrs`, `internal_ip`). */
const MINE_MAX_NAME = 256;
/** How long one mine.get answer serves the same question (see `gathered`), and how many are kept. */
const MINE_MEMO_MS = 1000;
const MINE_MEMO_MAX = 256;
/** Minions matched against a target per turn of the event loop (as the job manager's targeting). */
const MATCHES_PER_TURN = 2000;

export interface MineDeps {
  store: Pick<StoreBackend, 'minePut' | 'mineDelete' | 'mineGet'>;
  /** Accepted minion ids: a deleted or rejected key's values are not served. */
  acceptedIds(): Promise<string[]>;
  grainsOf(id: string): Promise<Grains>;
  /** Pillar of a minion, for pillar targets (I@, tgt_type=pillar). */
  pillarOf?: (id: string, grains: Grains) => Promise<Pillar>;
  nodegroups: Record<string, string | string[]>;
}

/** mine.get's arguments, as Salt's function takes them. */
export interface MineQuery {
  tgt: string | string[];
  fun: string | string[];
  tgt_type?: string;
  exclude_minion?: boolean;
}

const bad = (detail: string) => masterErrors.make('BRINE_ERR_MASTER_BAD_REQUEST', { detail });

/**
 * The master's mine: values minions push (mine_functions, mine.send) kept in the store, so every
 * master of a cluster answers alike, and mine.get answered from there, never from a host.
 */
export class MineService {
  private readonly deps: MineDeps;
  private readonly memo = new Map<string, { at: number; value: Promise<Record<string, Record<string, unknown>>> }>();
  constructor(deps: MineDeps) {
    this.deps = deps;
  }

  /** A minion's push (`mine.update`, `mine.send`): checked whole, then stored with the time of the push. */
  async push(minion: string, data: unknown, clear: boolean): Promise<void> {
    if (!isDict(data)) throw bad("mine.update: 'data' must be a dictionary of function -> value");
    const funs = Object.keys(data);
    for (const fun of funs) {
      if (fun === '' || fun.length > MINE_MAX_NAME) throw bad(`mine.update: a function name must be 1 to ${MINE_MAX_NAME} characters`);
      const p = checkJsonBounds(data[fun], fun, MAX_DATA_DEPTH, MINE_MAX_VALUE_BYTES);
      if (p) {
        const detail = p.kind === 'depth' ? `nested more than ${p.limit} levels deep (at ${p.at})` : `about ${p.size} bytes of JSON`;
        throw masterErrors.make('BRINE_ERR_MASTER_MINE_TOO_LARGE', { minion, fun, detail, limit: `${MINE_MAX_VALUE_BYTES} bytes` });
      }
    }
    const kept = clear ? new Set<string>() : new Set((await this.deps.store.mineGet({ minion })).map((r) => r.fun));
    for (const fun of funs) {
      kept.add(fun);
      if (kept.size > MINE_MAX_FUNCTIONS)
        throw masterErrors.make('BRINE_ERR_MASTER_MINE_TOO_MANY', { minion, fun, count: kept.size, limit: MINE_MAX_FUNCTIONS });
    }
    await this.deps.store.minePut(minion, data, clear);
    this.memo.clear();
  }

  /** mine.delete (one function) or mine.flush (all of them): only the minion's own. */
  async delete(minion: string, fun?: string): Promise<void> {
    if (fun !== undefined && (typeof fun !== 'string' || fun === '')) throw bad("mine.delete: 'fun' must be a function name");
    await this.deps.store.mineDelete(minion, fun);
    this.memo.clear();
  }

  /**
   * Salt's mine.get: `{minion: value}` for the minions the target matches that pushed `fun`; with
   * several functions (a list, or names joined by commas), `{fun: {minion: value}}`.
   * `exclude_minion` leaves out `caller`.
   */
  async get(q: MineQuery, caller?: string, inPillar = false): Promise<Record<string, unknown>> {
    const { funs, byFun } = functionsOf(q.fun);
    const type = (q.tgt_type ?? 'glob') as TargetType;
    if (!TARGET_TYPES.includes(type)) throw bad(`mine.get: unknown target type '${String(q.tgt_type)}'`);
    if (typeof q.tgt !== 'string' && !(Array.isArray(q.tgt) && q.tgt.every((x) => typeof x === 'string')))
      throw bad("mine.get: 'tgt' must be a string or a list");
    const diags = checkTarget(q.tgt, type, { nodegroups: this.deps.nodegroups });
    if (diags.length > 0) throw new BrineError(diags[0]!.code, diags[0]!.message, {}, diags);
    const needsPillar = type === 'pillar' || type === 'pillar_pcre' || (type === 'compound' && /(^|[\s(])[IJ]@/.test(String(q.tgt)));
    // a pillar that asked for others' pillars (which may ask for its own) would never end
    if (needsPillar && inPillar) throw bad(`mine.get in a pillar template cannot target by pillar ('${String(q.tgt)}', ${type})`);
    const found = await this.gathered(q.tgt, type, funs, needsPillar);
    // as Salt's master: a function no matched minion pushed has no key at all
    const out: Record<string, Record<string, unknown>> = {};
    for (const [fun, values] of Object.entries(found)) {
      const kept = Object.entries(values).filter(([m]) => !(q.exclude_minion && m === caller));
      if (kept.length > 0) out[fun] = Object.fromEntries(kept);
    }
    return byFun ? out : (out[funs[0]!] ?? {});
  }

  /**
   * `{fun: {minion: value}}` of the minions the target matches. A fleet's highstate asks the same
   * question once per minion: the answer is kept MINE_MEMO_MS (and dropped by this master's own
   * writes), so 10,000 renders read the store a few times, not 10,000 (another master's push
   * shows within that time).
   */
  private gathered(tgt: string | string[], type: TargetType, funs: string[], needsPillar: boolean): Promise<Record<string, Record<string, unknown>>> {
    const key = JSON.stringify([tgt, type, funs]);
    const now = Date.now();
    const hit = this.memo.get(key);
    if (hit && now - hit.at < MINE_MEMO_MS) return hit.value;
    if (this.memo.size >= MINE_MEMO_MAX) this.memo.clear();
    const value = this.match(tgt, type, funs, needsPillar);
    this.memo.set(key, { at: now, value });
    value.catch(() => this.memo.delete(key));
    return value;
  }

  private async match(tgt: string | string[], type: TargetType, funs: string[], needsPillar: boolean): Promise<Record<string, Record<string, unknown>>> {
    const opts = { nodegroups: this.deps.nodegroups };
    const rows = await this.deps.store.mineGet({ funs });
    const accepted = new Set(await this.deps.acceptedIds());
    const matched = new Map<string, boolean>();
    const out: Record<string, Record<string, unknown>> = {};
    for (let i = 0; i < rows.length; i++) {
      const r = rows[i]!;
      // thousands of minions' grains are matched in parts: other work goes on between them
      if (i % MATCHES_PER_TURN === MATCHES_PER_TURN - 1) await nextTurn();
      if (!accepted.has(r.minion)) continue;
      let hit = matched.get(r.minion);
      if (hit === undefined) {
        const grains = await this.deps.grainsOf(r.minion);
        const pillar = needsPillar && this.deps.pillarOf ? await this.deps.pillarOf(r.minion, grains) : undefined;
        hit = matchTarget(tgt, type, pillar ? { id: r.minion, grains, pillar } : { id: r.minion, grains }, opts);
        matched.set(r.minion, hit);
      }
      if (hit) (out[r.fun] ??= {})[r.minion] = r.value;
    }
    return out;
  }

  /**
   * The mine.get calls of a render, answered from the store (a call that fails gets its coded
   * error, as a host's would): `caller` is the minion compiling; `inPillar` for its pillar's templates.
   */
  async answer(calls: HostCallItem[], caller: string, inPillar = false): Promise<HostCallAnswer[]> {
    return Promise.all(
      calls.map(async (c): Promise<HostCallAnswer> => {
        try {
          return { ok: true, value: await this.get(mineQueryOf(c), caller, inPillar) };
        } catch (e) {
          const err = e as { code?: string; message: string };
          return { ok: false, code: err.code ?? 'BRINE_ERR_MASTER_INTERNAL', message: err.message };
        }
      }),
    );
  }
}

/** The functions asked for, and whether the answer is keyed by function (Salt's `_ret_dict`). */
function functionsOf(fun: unknown): { funs: string[]; byFun: boolean } {
  if (typeof fun === 'string' && fun !== '') {
    const funs = [...new Set(fun.split(','))];
    return { funs, byFun: funs.length > 1 };
  }
  if (Array.isArray(fun) && fun.every((f) => typeof f === 'string')) return { funs: [...new Set(fun as string[])], byFun: true };
  throw bad("mine.get: 'fun' must be a function name or a list of them");
}

/** The arguments of a mine.get call made as `salt['mine.get'](tgt, fun, tgt_type=..., exclude_minion=...)`. */
export function mineQueryOf(c: { args: unknown[]; kwargs: Record<string, unknown> }): MineQuery {
  const names = ['tgt', 'fun', 'tgt_type', 'exclude_minion'] as const;
  const a: Record<string, unknown> = {};
  c.args.forEach((v, i) => {
    if (i >= names.length) throw bad(`mine.get takes at most ${names.length} positional arguments`);
    a[names[i]!] = v;
  });
  for (const [k, v] of Object.entries(c.kwargs)) {
    if (k.startsWith('__')) continue;
    if (!(names as readonly string[]).includes(k)) throw bad(`mine.get: unexpected keyword argument '${k}'`);
    a[k] = v;
  }
  if (a.tgt === undefined || a.fun === undefined) throw bad("mine.get: missing required argument 'tgt' or 'fun'");
  return {
    tgt: a.tgt as string | string[],
    fun: a.fun as string | string[],
    ...(a.tgt_type !== undefined && a.tgt_type !== null ? { tgt_type: String(a.tgt_type) } : {}),
    ...(a.exclude_minion !== undefined ? { exclude_minion: a.exclude_minion === true || a.exclude_minion === 'True' || a.exclude_minion === 'true' } : {}),
  };
}

/**
 * The host calls of a render with the mine's reads taken out: `mine.get` is answered by the
 * master from the store (the minion's own mine.get would ask the master anyway, and a host must
 * never make up another's values); every other call goes to the host as before.
 */
export function askWithMine(mine: MineService, caller: string, ask: AskHost | undefined): AskHost {
  return async (calls) => {
    const mineAt: number[] = [];
    const hostAt: number[] = [];
    calls.forEach((c, i) => (c.fun === 'mine.get' ? mineAt : hostAt).push(i));
    const out: HostCallAnswer[] = new Array<HostCallAnswer>(calls.length);
    const [fromMine, fromHost] = await Promise.all([
      mine.answer(
        mineAt.map((i) => calls[i]!),
        caller,
      ),
      hostAt.length === 0 ? [] : ask ? ask(hostAt.map((i) => calls[i]!)) : Promise.reject(masterErrors.make('BRINE_ERR_MASTER_HOST_GONE', { minion: caller })),
    ]);
    mineAt.forEach((i, k) => (out[i] = fromMine[k]!));
    hostAt.forEach((i, k) => (out[i] = (fromHost as HostCallAnswer[])[k]!));
    return out;
  };
}
