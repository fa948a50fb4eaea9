import { parseArgs } from 'node:util';
import { createLogger, isDict, type RunningDict } from '@brine/core';
import type { Command, CommandIO } from '../command.js';
import { cliErrors } from '../errors.js';
import { logFormat } from '../log-format.js';
import { commandParams } from '../local/params.js';
import { STATE_RUN_FUNCTIONS, useColor } from '../output/fleet.js';
import { formatJson, formatYaml } from '../output/format.js';
import { formatHighstate, formatHighstateErrors, type HighstateMode } from '../output/highstate.js';
import { outputOption, renderData, type Outputter } from '../output/outputters.js';
import { formatNestedOf } from '../output/report.js';
import { parseSaltArgs } from '../salt-args.js';
import { minionConfigFile } from './minion.js';

const USAGE =
  'brine call <function> [arg ...] [key=value ...] [--config MINION_CONFIG] [--id ID] [--master HOST[:PORT]] [--out highstate|text|json|yaml|nested|raw|txt|quiet] [--state-output full|terse|mixed|changes] [--params FILE ...] [--show-jid] [--log-level LEVEL] [--log-format auto|json|pretty]';

/** `brine call`: salt-call, run on a minion's host as that minion, with its master's trees and pillar. */
export const callCommand: Command = {
  name: 'call',
  summary: "run a function on this minion's host with its master's states and pillar (like salt-call)",
  usage: USAGE,
  async run(argv, io) {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        config: { type: 'string', short: 'c' },
        id: { type: 'string' },
        master: { type: 'string' },
        out: { type: 'string' },
        'state-output': { type: 'string' },
        params: { type: 'string', multiple: true },
        'show-jid': { type: 'boolean' },
        'log-level': { type: 'string', short: 'l' },
        'log-format': { type: 'string' },
      },
    });
    const [fun, ...rest] = positionals;
    if (!fun) throw cliErrors.make('BRINE_ERR_CLI_USAGE', { detail: 'no function given', usage: USAGE });
    const out = outputOption(values.out, USAGE, 'text');
    const mode = (values['state-output'] ?? 'full') as HighstateMode;
    if (!['full', 'terse', 'mixed', 'changes'].includes(mode)) {
      throw cliErrors.make('BRINE_ERR_CLI_USAGE', { detail: `unknown --state-output '${mode}' (full, terse, mixed, changes)`, usage: USAGE });
    }
    const { args: arg, kwargs: kwarg } = parseSaltArgs(rest);
    if (values.params?.length || kwarg.params !== undefined) {
      kwarg.params = commandParams(values.params ?? [], kwarg.params, io.cwd, (detail) => {
        throw cliErrors.make('BRINE_ERR_CLI_USAGE', { detail, usage: USAGE });
      });
    }
    const overrides: Record<string, unknown> = {};
    if (values.id) overrides.id = values.id;
    if (values.master) overrides.master = values.master.includes(',') ? values.master.split(',') : values.master;
    const { loadMinionConfig, runCall } = await import('@brine/minion');
    const warnings: Array<[string, string]> = [];
    const config = loadMinionConfig(minionConfigFile(values.config, io.env, values.master !== undefined), overrides, (event, msg) =>
      warnings.push([event, msg]),
    );
    // as salt-call: warnings only (the daemon's info lines would bury the answer)
    const level = values['log-level'] ?? 'warning';
    const log = createLogger({ level, base: { app: 'brine', role: 'call' }, format: logFormat(values['log-format'], USAGE) });
    for (const [event, msg] of warnings) log.warn({ event }, msg);
    const r = await runCall(config, { log }, fun, arg, kwarg);
    if (!r.stored) io.stderr(`brine call: the master did not acknowledge the return of job ${r.jid}: it may not be stored\n`);
    if (values['show-jid']) io.stdout(`jid: ${r.jid}\n`);
    printCallResult(io, config.id, fun, r.ret.return, out, mode);
    return r.ret.retcode;
  },
};

/** One minion's return as salt-call prints it: the highstate outputter for state runs, nested for the rest. */
function printCallResult(io: CommandIO, minion: string, fun: string, value: unknown, out: Outputter, mode: HighstateMode): void {
  const color = useColor(io);
  const isRun = STATE_RUN_FUNCTIONS.has(fun);
  if (out === 'text' || out === 'highstate') {
    if (isRun && isDict(value)) io.stdout(formatHighstate(value as RunningDict, { minion, color, mode }) + '\n');
    else if (isRun && Array.isArray(value)) io.stdout(formatHighstateErrors(value.map(String), { minion, color }) + '\n');
    else io.stdout(formatNestedOf(minion, value, color));
  } else if (out === 'json') io.stdout(formatJson(minion, value));
  else if (out === 'yaml') io.stdout(formatYaml(minion, value));
  else if (out === 'nested') io.stdout(formatNestedOf(minion, value, color));
  else io.stdout(renderData(out, { [minion]: value }));
}
