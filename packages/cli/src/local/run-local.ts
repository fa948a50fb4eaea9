import { errorLines, formatDiagnostic } from '@brine/core';
import type { CommandIO } from '../command.js';
import { formatYaml, writeJson } from '../output/format.js';
import { formatHighstate } from '../output/highstate.js';
import { formatNestedOf } from '../output/report.js';
import { renderData } from '../output/outputters.js';
import { withUserPath } from './file-roots.js';
import { runExecLocal } from './exec.js';
import { isApplyFunction, isLocalFunction } from './function-names.js';
import { parseLocalOptions, type LocalOptions } from './options.js';
import type { LocalFunction } from './functions.js';
import type { LocalResult } from './result.js';

/**
 * A compile or a state run: the compiler is loaded for these only, the runtime and the state
 * modules' code for a run only.
 */
async function runLocalFunction(opts: LocalOptions): Promise<LocalResult> {
  const [table, { localStates }] = await Promise.all([
    isApplyFunction(opts.fun) ? import('./apply.js').then((m) => m.applyFunctions) : import('./functions.js').then((m) => m.showFunctions),
    import('./registry.js'),
  ]);
  return (table as Record<string, LocalFunction>)[opts.fun]!(opts, await localStates(opts.roots));
}

/** `brine local`: one function on this host, printed like salt-call's outputters. */
export async function runLocal(argv: string[], io: CommandIO): Promise<number> {
  const opts = await parseLocalOptions(argv, io.cwd, io.env);
  // anything that is not a compile or a state run is an execution function, as salt-call runs it
  const result = isLocalFunction(opts.fun) ? await runLocalFunction(opts) : await runExecLocal(opts);
  const diagnostics = result.diagnostics.map((d) => withUserPath(d, opts.roots, io.cwd));
  for (const d of diagnostics) io.stderr(formatDiagnostic(d) + '\n');
  const minion = 'local';
  // the error list again, with the paths as the user can open them
  const value = result.compileFailed ? errorLines(diagnostics) : result.value;
  const out = opts.out ?? (result.isRun ? 'highstate' : result.isExec ? 'nested' : 'yaml');
  if (out === 'json') {
    // the text (a long list in pieces), then its line break: joined, the whole text (MBs for a
    // large compile) would be copied once more before being encoded for the stream
    writeJson(minion, value, (t) => io.stdout(t));
    io.stdout('\n');
  } else if (result.compileFailed) {
    // The errors went to stderr already, one per line with file and line.
  } else if (out === 'highstate' && result.isRun) {
    io.stdout(formatHighstate(value as Parameters<typeof formatHighstate>[0], { minion, color: opts.color, mode: opts.stateOutput }) + '\n');
  } else if (out === 'nested') io.stdout(formatNestedOf(minion, value, opts.color));
  else if (out === 'raw' || out === 'txt' || out === 'quiet') io.stdout(renderData(out, { [minion]: value }));
  else io.stdout(formatYaml(minion, value));
  return result.retcode;
}
