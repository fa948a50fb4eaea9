import { errorLines, globMatch, type Diagnostic } from '@brine/core';
import { cliErrors } from '../errors.js';
import { compileFor, pillarFailure, slsArgs, topFor } from './compile.js';
import type { SHOW_FUNCTIONS } from './function-names.js';
import type { LocalOptions } from './options.js';
import type { LocalStates } from './registry.js';
import type { LocalResult } from './result.js';

export type { LocalResult };

export type LocalFunction = (opts: LocalOptions, states: LocalStates) => Promise<LocalResult>;

/** Like Salt, a compile failure returns the list of errors (here each names file and line). */
export function failed(diagnostics: Diagnostic[], isRun?: boolean): LocalResult {
  return { value: errorLines(diagnostics), retcode: 1, diagnostics, compileFailed: true, ...(isRun ? { isRun } : {}) };
}

function matching(names: string[], patterns: unknown[], bareIsModule = true): string[] {
  if (patterns.length === 0) return names;
  // for functions, 'file' means the module's functions, as in Salt ('file' -> 'file.*')
  const globs = patterns.map(String).map((p) => (bareIsModule && !/[*?[.]/.test(p) ? `${p}.*` : p));
  return names.filter((n) => globs.some((g) => globMatch(n, g)));
}

function needSls(opts: LocalOptions): void {
  if (slsArgs(opts).length === 0) {
    throw cliErrors.make('BRINE_ERR_CLI_USAGE', { detail: `${opts.fun} needs an SLS name`, usage: `brine local ${opts.fun} <sls>[,<sls>...]` });
  }
}

export const showFunctions: Record<(typeof SHOW_FUNCTIONS)[number], LocalFunction> = {
  async 'state.show_top'(opts) {
    const broken = pillarFailure(opts);
    if (broken) return failed(broken.diagnostics);
    const top = await topFor(opts);
    if (top.diagnostics.some((d) => d.severity === 'error')) return failed(top.diagnostics);
    return { value: top.matches, retcode: 0, diagnostics: top.diagnostics };
  },
  async 'state.show_highstate'(opts, states) {
    const c = await compileFor(opts, 'highstate', false, states.schema);
    return c.failed ? failed(c.diagnostics) : { value: c.rawHigh, retcode: 0, diagnostics: c.diagnostics };
  },
  async 'state.show_lowstate'(opts, states) {
    const c = await compileFor(opts, 'highstate', false, states.schema);
    return c.failed ? failed(c.diagnostics) : { value: c.low, retcode: 0, diagnostics: c.diagnostics };
  },
  async 'state.show_sls'(opts, states) {
    needSls(opts);
    const c = await compileFor(opts, 'sls', false, states.schema);
    return c.failed ? failed(c.diagnostics) : { value: c.rawHigh, retcode: 0, diagnostics: c.diagnostics };
  },
  async 'state.show_low_sls'(opts, states) {
    needSls(opts);
    const c = await compileFor(opts, 'sls', true, states.schema);
    return c.failed ? failed(c.diagnostics) : { value: c.low, retcode: 0, diagnostics: c.diagnostics };
  },
  // Salt's sys.list_state_functions / list_state_modules: globs filter, no argument lists all
  async 'sys.list_state_functions'(opts, states) {
    return { value: matching(states.schema.list(), opts.call.args), retcode: 0, diagnostics: [] };
  },
  async 'sys.list_state_modules'(opts, states) {
    const modules = [...new Set(states.schema.list().map((f) => f.slice(0, f.indexOf('.'))))];
    return { value: matching(modules, opts.call.args, false), retcode: 0, diagnostics: [] };
  },
  async 'pillar.items'(opts) {
    const broken = pillarFailure(opts);
    if (broken) return failed(broken.diagnostics);
    return { value: opts.pillar, retcode: 0, diagnostics: opts.pillarDiagnostics };
  },
};
