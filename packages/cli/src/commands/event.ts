import { parseArgs } from 'node:util';
import { MasterClient, resolveApi } from '@brine/master/client';
import { yamlLib } from '@brine/core';
import type { Command } from '../command.js';
import { cliErrors } from '../errors.js';

/** `brine event send TAG [DATA]`: fires an operator's event on the master's bus (Salt's `salt-run event.send`). */
export const eventCommand: Command = {
  name: 'event',
  summary: "fire an event on the master's bus (brine event send TAG [DATA as JSON/YAML])",
  usage: 'brine event send TAG [DATA] [--config MASTER_CONFIG]',
  async run(argv, io) {
    const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { config: { type: 'string', short: 'c' } } });
    const usage = (detail: string) => cliErrors.make('BRINE_ERR_CLI_USAGE', { detail, usage: this.usage });
    const [verb, tag, text] = positionals;
    if (verb !== 'send') throw usage(verb === undefined ? 'no subcommand given' : `unknown subcommand '${verb}'`);
    if (!tag) throw usage('no tag given');
    if (positionals.length > 3) throw usage('one DATA argument at most (quote it)');
    let data: unknown = {};
    if (text !== undefined) {
      try {
        data = (yamlLib().parse(text, { version: '1.1' }) as unknown) ?? {};
      } catch (e) {
        throw usage(`DATA is not JSON or YAML: ${(e as Error).message}`);
      }
    }
    if (typeof data !== 'object' || data === null || Array.isArray(data)) throw usage('DATA must be a dictionary (JSON or YAML), like \'{"version": 3}\'');
    const client = new MasterClient(resolveApi(values.config, io.env));
    await client.post('/v1/events', { tag, data });
    io.stdout(`event ${tag} sent\n`);
    return 0;
  },
};
