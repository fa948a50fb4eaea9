import { parseArgs } from 'node:util';
import { createLogger, toBrineError } from '@brine/core';
import { MasterClient, resolveApi } from '@brine/master/client';
import type { Command } from '../command.js';
import { outputOption, renderData } from '../output/outputters.js';
import { logFormat } from '../log-format.js';

/** `brine minion`: runs the minion agent in the foreground until SIGTERM/SIGINT. */
export const minionCommand: Command = {
  name: 'minion',
  summary: 'run the minion agent',
  usage: 'brine minion [--config FILE] [--id ID] [--master HOST[:PORT][,HOST[:PORT]...]] [--log-level LEVEL] [--log-format auto|json|pretty]',
  async run(argv, io) {
    const { values } = parseArgs({
      args: argv,
      options: {
        config: { type: 'string', short: 'c' },
        id: { type: 'string' },
        master: { type: 'string' },
        'log-level': { type: 'string', short: 'l' },
        'log-format': { type: 'string' },
      },
    });
    const overrides: Record<string, unknown> = {};
    if (values.id) overrides.id = values.id;
    // several masters (failover) as a comma-separated list, like `master:` as a list in the config
    if (values.master) overrides.master = values.master.includes(',') ? values.master.split(',') : values.master;
    if (values['log-level']) overrides.log_level = values['log-level'];
    const { loadMinionConfig, MinionAgent } = await import('@brine/minion');
    const config = loadMinionConfig(values.config ?? io.env.BRINE_MINION_CONFIG, overrides);
    const log = createLogger({ level: config.log_level, base: { app: 'brine', role: 'minion' }, format: logFormat(values['log-format'], this.usage) });
    const agent = new MinionAgent(config, { log });
    const code = await new Promise<number>((resolve) => {
      agent.once('fatal', (err: unknown) => {
        const e = toBrineError(err);
        io.stderr(`brine minion: ${e.code}: ${e.message}\n`);
        resolve(1);
      });
      const stop = () => resolve(0);
      process.once('SIGTERM', stop);
      process.once('SIGINT', stop);
      agent.start();
    });
    await agent.stop();
    return code;
  },
};

interface MinionInfo {
  id: string;
  accepted: boolean;
  connected: boolean;
  last_seen: string | null;
}

/** `brine minions`: which minions the master knows, connected or when last seen. */
export const minionsCommand: Command = {
  name: 'minions',
  summary: 'list known minions: connected, last seen',
  usage: 'brine minions [--out text|json|yaml|nested|raw|txt|quiet] [--config MASTER_CONFIG]',
  async run(argv, io) {
    const { values } = parseArgs({
      args: argv,
      options: { config: { type: 'string', short: 'c' }, out: { type: 'string' } },
    });
    const out = outputOption(values.out, this.usage, 'text', { highstate: 'text' });
    const client = new MasterClient(resolveApi(values.config, io.env));
    const { minions } = await client.get<{ minions: MinionInfo[] }>('/v1/minions');
    if (out !== 'text' && out !== 'highstate') {
      io.stdout(
        renderData(
          out,
          minions.map(({ id, accepted, connected, last_seen }) => ({ id, accepted, connected, last_seen })),
        ),
      );
      return 0;
    }
    for (const m of minions) {
      const state = m.connected ? 'connected' : `last seen ${m.last_seen ?? 'never'}`;
      io.stdout(`${m.id.padEnd(30)} ${m.accepted ? '' : '(key not accepted) '}${state}\n`);
    }
    return 0;
  },
};
