import { isDict, type Logger } from '@brine/core';
import { bindArgs, type ExecRegistry } from '@brine/exec';
import { checkJsonBounds, MAX_DATA_DEPTH, MINE_MAX_VALUE_BYTES } from '@brine/protocol';
import { minionErrors } from './errors.js';
import type { MinionExecContext } from './exec-function.js';

/** One entry of mine_functions, parsed as Salt's parse_function_definition does. */
export interface MineFunction {
  /** The name its value is stored under (the function, or an alias). */
  name: string;
  fun: string;
  args: unknown[];
  kwargs: Record<string, unknown>;
}

/**
 * `network.ip_addrs: [eth0]` (positional arguments; dictionaries in the list are keyword
 * arguments), `{interface: eth0}` (keyword arguments), `[]` or nothing; `mine_function` among
 * the keyword arguments makes the entry an alias of that function.
 */
export function parseMineFunction(name: string, def: unknown): MineFunction | { name: string; refused: string } {
  const args: unknown[] = [];
  const kwargs: Record<string, unknown> = {};
  if (isDict(def)) Object.assign(kwargs, def);
  else if (Array.isArray(def)) {
    for (const item of def) {
      if (isDict(item)) Object.assign(kwargs, item);
      else args.push(item);
    }
  } else if (def !== null && def !== undefined && def !== '') return { name, refused: 'its arguments must be a list or a dictionary' };
  // Salt's allow_tgt limits who may read the value; the master serves every value to every minion, so such a value stays here
  if ('allow_tgt' in kwargs || 'allow_tgt_type' in kwargs) return { name, refused: 'allow_tgt is not supported (every minion may read what the mine holds)' };
  const fun = kwargs.mine_function;
  delete kwargs.mine_function;
  if (fun !== undefined && typeof fun !== 'string') return { name, refused: 'mine_function must be a function name' };
  return { name, fun: fun ?? name, args, kwargs };
}

export interface MineDeps {
  config: { mine_functions: Record<string, unknown>; mine_interval: number };
  log: Logger;
  exec: ExecRegistry;
  /** Asks the master (waits through reconnects). */
  request(op: string, args: Record<string, unknown>): Promise<unknown>;
  /** This minion's pillar, asked of the master. */
  pillar(): Promise<Record<string, unknown>>;
  /** What a function run for the mine sees (no job: like a template's host call). */
  context(fun: string): MinionExecContext;
  /** Bytes one request may carry to the master (its frame limit, less room for the envelope). */
  requestBytes(): number;
}

/**
 * The minion's side of Salt's mine: runs mine_functions (the minion config's, over the
 * pillar's) and pushes their values to the master at start, every mine_interval minutes and on
 * mine.update; mine.send, mine.delete and mine.flush ask the master for this minion only.
 */
export class MinePusher {
  private functions: MineFunction[] = [];
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private readonly deps: MineDeps;
  constructor(deps: MineDeps) {
    this.deps = deps;
  }

  /**
   * Reads mine_functions again (config over pillar, as Salt's config.merge) and schedules the
   * pushes; called at start and again when the pillar is refreshed (with that `pillar`, else it
   * is asked of the master). Resolves to the functions.
   */
  async reload(pillar?: Record<string, unknown>): Promise<MineFunction[]> {
    let fromPillar: Record<string, unknown> = {};
    try {
      const p = (pillar ?? (await this.deps.pillar())).mine_functions;
      if (isDict(p)) fromPillar = p;
    } catch (err) {
      this.deps.log.warn({ event: 'mine_pillar_failed', err }, 'mine: the pillar could not be read; mine_functions of the config only');
    }
    this.functions = this.parse({ ...fromPillar, ...this.deps.config.mine_functions });
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    const minutes = this.deps.config.mine_interval;
    if (!this.stopped && this.functions.length > 0 && minutes > 0) {
      this.timer = setInterval(() => void this.update().catch((err: unknown) => this.failed(err)), minutes * 60_000);
      this.timer.unref();
    }
    return this.functions;
  }

  /** The first push, after the first welcome: reload, then update. */
  /** The first push; `pillar` when the caller has it already (else it is asked for). */
  async start(pillar?: Record<string, unknown>): Promise<void> {
    await this.reload(pillar);
    if (this.functions.length > 0) await this.update();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
  }

  private parse(defs: Record<string, unknown>): MineFunction[] {
    const out: MineFunction[] = [];
    for (const [name, def] of Object.entries(defs)) {
      const f = parseMineFunction(name, def);
      if ('refused' in f) this.refuse(name, f.refused);
      else if (!this.deps.exec.lookup(f.fun)) this.refuse(name, `function ${f.fun} is not available`);
      else out.push(f);
    }
    return out;
  }

  private refuse(name: string, detail: string, where = 'mine_functions'): void {
    const e = minionErrors.make('BRINE_ERR_MINION_MINE_FUNCTION', { where, name, detail });
    this.deps.log.warn({ event: 'mine_function_refused', code: e.code, name }, e.message);
  }

  private failed(err: unknown): void {
    this.deps.log.warn({ event: 'mine_push_failed', err }, `mine: the push failed: ${(err as Error).message}`);
  }

  /**
   * Salt's mine.update: runs the functions (mine_functions, or those given) and pushes their
   * values; a function that fails or whose value is too large is left out and logged. Resolves
   * to whether anything was configured.
   */
  async update(clear = false, defs?: Record<string, unknown>): Promise<boolean> {
    const functions = defs ? this.parse(defs) : this.functions;
    if (functions.length === 0) return false;
    const data: Record<string, unknown> = {};
    for (const f of functions) {
      try {
        data[f.name] = await this.run(f);
      } catch (err) {
        this.refuse(f.name, `${f.fun} failed: ${(err as Error).message}`);
      }
    }
    await this.push(data, clear);
    this.deps.log.info({ event: 'mine_pushed', functions: Object.keys(data) }, 'mine: values pushed to the master');
    return true;
  }

  /**
   * Salt's mine.send: one function (`mine_function` in kwargs makes `name` an alias), run and
   * pushed; false (logged) when the function fails, as Salt's.
   */
  async send(name: string, args: unknown[], kwargs: Record<string, unknown>): Promise<boolean> {
    const f = parseMineFunction(name, [...args, kwargs]);
    if ('refused' in f) {
      this.refuse(name, f.refused, 'mine.send');
      return false;
    }
    let value: unknown;
    try {
      if (!this.deps.exec.lookup(f.fun)) throw new Error(`function ${f.fun} is not available`);
      value = await this.run(f);
    } catch (err) {
      this.refuse(name, `${f.fun} failed: ${(err as Error).message}`, 'mine.send');
      return false;
    }
    await this.push({ [name]: value }, false);
    return true;
  }

  async delete(fun: string): Promise<void> {
    await this.deps.request('mine.delete', { fun });
  }

  async flush(): Promise<void> {
    await this.deps.request('mine.flush', {});
  }

  private async run(f: MineFunction): Promise<unknown> {
    const fn = this.deps.exec.get(f.fun);
    const value = (await fn.run(bindArgs(fn, f.args, f.kwargs), this.deps.context(f.fun))).return;
    const p = checkJsonBounds(value, f.name, MAX_DATA_DEPTH, MINE_MAX_VALUE_BYTES);
    if (p)
      throw new Error(
        p.kind === 'depth'
          ? `its value is nested more than ${p.limit} levels deep`
          : `its value is about ${p.size} bytes, more than the ${p.limit} the master keeps`,
      );
    return value;
  }

  /** Pushes in requests that each fit a frame (the first one clears, when asked). */
  private async push(data: Record<string, unknown>, clear: boolean): Promise<void> {
    const budget = this.deps.requestBytes();
    let part: Record<string, unknown> = {};
    let size = 0;
    let first = true;
    const send = async () => {
      await this.deps.request('mine.update', { data: part, clear: clear && first });
      first = false;
      part = {};
      size = 0;
    };
    for (const [name, value] of Object.entries(data)) {
      const bytes = (JSON.stringify(value) ?? 'null').length + name.length + 8;
      if (size > 0 && size + bytes > budget) await send();
      part[name] = value;
      size += bytes;
    }
    if (size > 0 || first) await send();
  }
}
