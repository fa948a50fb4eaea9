import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { Command } from '../command.js';
import { printCheckStep } from '../output/check-steps.js';

/** `brine doctor`: the master's host checked step by step (see doctorMaster); exit 1 at the first failure. */
export const doctorCommand: Command = {
  name: 'doctor',
  summary: "check the master's config, data dir, store, ports, compile workers and file roots",
  usage: 'brine doctor [--config MASTER_CONFIG]',
  async run(argv, io) {
    const { values } = parseArgs({ args: argv, options: { config: { type: 'string', short: 'c' } } });
    const { doctorMaster } = await import('@brine/master');
    const { DEFAULT_MASTER_CONFIG } = await import('@brine/master/client');
    // found as `brine master` finds it: flag, environment, default path
    const file = values.config || io.env.BRINE_MASTER_CONFIG || (existsSync(DEFAULT_MASTER_CONFIG) ? DEFAULT_MASTER_CONFIG : undefined);
    return (await doctorMaster(file, (s) => printCheckStep(io, s))) ? 0 : 1;
  },
};
