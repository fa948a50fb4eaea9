import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { createLogger } from '@brine/core';
import type { Command } from '../command.js';
import { logFormat } from '../log-format.js';

/** `brine master`: runs the master daemon in the foreground until SIGTERM/SIGINT. */
export const masterCommand: Command = {
  name: 'master',
  summary: 'run the master daemon (minion channel + operator API)',
  usage: 'brine master [--config FILE] [--log-level LEVEL] [--log-format auto|json|pretty] [--new-store]',
  async run(argv, io) {
    const { values } = parseArgs({
      args: argv,
      options: {
        config: { type: 'string', short: 'c' },
        'log-level': { type: 'string', short: 'l' },
        'log-format': { type: 'string' },
        // where a master ran before and its SQLite store is gone: begin a new one deliberately
        'new-store': { type: 'boolean' },
      },
    });
    const { loadMasterConfig, startMaster } = await import('@brine/master');
    const { DEFAULT_MASTER_CONFIG } = await import('@brine/master/client');
    // found the way every other verb finds the master: flag, environment, default path
    const file = values.config || io.env.BRINE_MASTER_CONFIG || (existsSync(DEFAULT_MASTER_CONFIG) ? DEFAULT_MASTER_CONFIG : undefined);
    const warnings: Array<[string, string]> = [];
    const config = loadMasterConfig(
      file,
      {
        ...(values['log-level'] ? { log_level: values['log-level'] } : {}),
        ...(values['new-store'] ? { new_store: true } : {}),
      },
      (event, msg) => warnings.push([event, msg]),
    );
    const log = createLogger({ level: config.log_level, base: { app: 'brine', role: 'master' }, format: logFormat(values['log-format'], this.usage) });
    for (const [event, msg] of warnings) log.warn({ event }, msg);
    const master = await startMaster(config, log);
    await new Promise<void>((resolve) => {
      const stop = () => resolve();
      process.once('SIGTERM', stop);
      process.once('SIGINT', stop);
    });
    await master.close();
    return 0;
  },
};
