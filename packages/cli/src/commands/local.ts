import { formatDiagnostic } from '@brine/core';
import { defaultRegistry } from '@brine/states';
import type { Command } from '../command.js';
import { cliErrors } from '../errors.js';
import { applyFunctions } from '../local/apply.js';
import { showFunctions, type LocalFunction } from '../local/functions.js';
import { withUserPath } from '../local/file-roots.js';
import { LOCAL_USAGE, parseLocalOptions } from '../local/options.js';
import { formatJson, formatYaml } from '../output/format.js';
import { formatHighstate } from '../output/highstate.js';

/** Every function `brine local` knows. */
export const localFunctions: Record<string, LocalFunction> = { ...showFunctions, ...applyFunctions };

export const localCommand: Command = {
  name: 'local',
  summary: 'compile and run states on this host, no master (like salt-call --local)',
  usage: LOCAL_USAGE,
  async run(argv, io) {
    const opts = parseLocalOptions(argv, io.cwd);
    const fn = localFunctions[opts.fun];
    if (!fn) {
      throw cliErrors.make('BRINE_ERR_CLI_UNKNOWN_FUNCTION', { fun: opts.fun, known: Object.keys(localFunctions).sort().join(', ') });
    }
    const result = await fn(opts, defaultRegistry());
    const diagnostics = result.diagnostics.map((d) => withUserPath(d, opts.roots, io.cwd));
    for (const d of diagnostics) io.stderr(formatDiagnostic(d) + '\n');
    const minion = 'local';
    const value = result.compileFailed ? diagnostics.filter((d) => d.severity === 'error').map(formatDiagnostic) : result.value;
    const out = opts.out ?? (result.isRun ? 'highstate' : 'yaml');
    if (out === 'json') io.stdout(formatJson(minion, value));
    else if (result.compileFailed) {
      // The errors went to stderr already, one per line with file and line.
    } else if (out === 'highstate' && result.isRun) {
      io.stdout(formatHighstate(value as Parameters<typeof formatHighstate>[0], { minion, color: opts.color, mode: opts.stateOutput }) + '\n');
    } else io.stdout(formatYaml(minion, value));
    return result.retcode;
  },
};
