import { globMatch } from '@brine/core';
import { execErrors } from './errors.js';
import type { ExecFunction, ExecTable } from './function-types.js';

/** The one table of execution functions; every caller (minion, brine local, checks, module.run) goes through it. */
export class ExecRegistry implements ExecTable {
  private readonly fns = new Map<string, ExecFunction>();

  /** Adds functions; a name given again replaces the earlier one (a caller's own version wins). */
  register(...fns: ExecFunction[]): this {
    for (const f of fns) this.fns.set(f.name, f);
    return this;
  }

  lookup(name: string): ExecFunction | undefined {
    return this.fns.get(name);
  }

  /** Like lookup, but an unknown name is Salt's "'x.y' is not available." */
  get(name: string): ExecFunction {
    const f = this.fns.get(name);
    if (!f) throw execErrors.make('BRINE_ERR_EXEC_UNKNOWN_FUNCTION', { fun: name });
    return f;
  }

  /** Sorted names; globs filter, a bare module name means its functions ('file' -> 'file.*'), as Salt's sys.list_functions. */
  list(...patterns: string[]): string[] {
    const names = [...this.fns.keys()].sort();
    if (patterns.length === 0) return names;
    const globs = patterns.map((p) => (/[*?[.]/.test(p) ? p : `${p}.*`));
    return names.filter((n) => globs.some((g) => globMatch(n, g)));
  }

  modules(): string[] {
    return [...new Set([...this.fns.keys()].map((n) => n.slice(0, n.indexOf('.'))))].sort();
  }

  /** name -> doc for the functions matching (sys.doc); a bare module name means its functions. */
  doc(...patterns: string[]): Record<string, string> {
    const out: Record<string, string> = {};
    for (const n of patterns.length ? this.list(...patterns) : this.list()) out[n] = this.fns.get(n)!.doc;
    return out;
  }

  /** A copy, so a caller can add its own functions without changing the shared one. */
  clone(): ExecRegistry {
    return new ExecRegistry().register(...this.fns.values());
  }
}
