import { parseArgs } from 'node:util';
import { MasterClient, resolveApi } from '@brine/master/client';
import type { Command } from '../command.js';
import { outputOption, renderData } from '../output/outputters.js';

/** `brine events`: the master's event bus, one JSON object a line. */
export const eventsCommand: Command = {
  name: 'events',
  summary: 'stream master events (one JSON line each)',
  usage: 'brine events [--tag GLOB] [--count N] [--out json|yaml|nested|raw|txt|quiet] [--config MASTER_CONFIG]',
  async run(argv, io) {
    const { values } = parseArgs({
      args: argv,
      options: {
        config: { type: 'string', short: 'c' },
        tag: { type: 'string' },
        count: { type: 'string' },
        out: { type: 'string' },
      },
    });
    // one JSON object a line by default (what programs tail); Salt's outputter names otherwise
    const out = outputOption(values.out, this.usage, 'json', { text: 'json', highstate: 'json' });
    const show = (ev: unknown) => (out === 'json' ? JSON.stringify(ev) + '\n' : renderData(out as Exclude<typeof out, 'text' | 'highstate'>, ev));
    const client = new MasterClient(resolveApi(values.config, io.env));
    const max = values.count !== undefined ? Number(values.count) : Infinity;
    const ac = new AbortController();
    const stop = () => ac.abort();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    let seen = 0;
    await client.events(
      values.tag,
      (ev) => {
        io.stdout(show(ev));
        if (++seen >= max) ac.abort();
      },
      ac.signal,
      () => io.stderr('listening for events\n'),
    );
    return 0;
  },
};
