import { parseArgs } from 'node:util';
import { MasterClient, resolveApi } from '@brine/master/client';
import type { Command } from '../command.js';
import { cliErrors } from '../errors.js';
import { outputOption, renderData } from '../output/outputters.js';
import { useColor } from '../output/fleet.js';
import { fromParseError } from '../parse-errors.js';
import { formatNestedOf } from '../output/report.js';

const USAGE =
  'brine pillar explain <minion> <name> [--out text|json|yaml|nested|raw|txt|quiet] [--config MASTER_CONFIG]\n' +
  '       brine pillar items <minion> [--out nested|json|yaml|raw|txt|quiet] [--config MASTER_CONFIG]';

function usage(detail: string): never {
  throw cliErrors.make('BRINE_ERR_CLI_USAGE', { detail, usage: USAGE });
}

/**
 * `brine pillar`: a minion's pillar as the master compiles it (classic pillar and ext_pillar,
 * then structured bindings on top), and `explain`: which binding gave a name its value (file,
 * line, layer, categories) and every binding it shadowed, or for a name no binding gives, the
 * pillar source (pillar_roots, `ext_pillar:KIND ...`) it came from and the sources it shadowed.
 * Asks the master; the minion need not be connected.
 */
export const pillarCommand: Command = {
  name: 'pillar',
  summary: "a minion's pillar, and which binding or pillar source gave a name its value (explain)",
  usage: USAGE,
  async run(argv, io) {
    let parsed;
    try {
      parsed = parseArgs({
        args: argv,
        allowPositionals: true,
        options: { config: { type: 'string', short: 'c' }, out: { type: 'string' } },
      });
    } catch (e) {
      throw fromParseError(e, USAGE);
    }
    const { values, positionals } = parsed;
    const [sub, minion, name] = positionals;
    const out = outputOption(values.out, USAGE, 'text', { highstate: 'text' });
    const client = () => new MasterClient(resolveApi(values.config, io.env));
    if (sub === 'explain') {
      if (!minion || !name || positionals.length > 3) usage('explain takes a minion id and a pillar name');
      const r = await client().get<{ bound: boolean; text: string; errors: string[] }>(
        `/v1/minions/${encodeURIComponent(minion)}/pillar/explain?name=${encodeURIComponent(name)}`,
      );
      if (out !== 'text' && out !== 'highstate') io.stdout(renderData(out, r));
      else {
        io.stdout(r.text);
        for (const e of r.errors) io.stderr(e + '\n');
      }
      return r.bound ? 0 : 1;
    }
    if (sub === 'items') {
      if (!minion || positionals.length > 2) usage('items takes a minion id');
      const r = await client().get<{ pillar: Record<string, unknown>; errors: string[] }>(`/v1/minions/${encodeURIComponent(minion)}/pillar`);
      io.stdout(out === 'text' || out === 'highstate' ? formatNestedOf(minion, r.pillar, useColor(io)) : renderData(out, { [minion]: r.pillar }));
      for (const e of r.errors) io.stderr(e + '\n');
      return r.errors.length ? 1 : 0;
    }
    return usage(sub ? `unknown subcommand '${sub}'` : 'name a subcommand');
  },
};
