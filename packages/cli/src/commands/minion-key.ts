import { parseArgs } from 'node:util';
import type { Command } from '../command.js';
import { cliErrors } from '../errors.js';

const USAGE = 'brine minion-key --config MINION_CONFIG';

/**
 * `brine minion-key`: on a minion's host, makes the minion's key pair where the config puts it
 * (unless it exists) and prints the public key, so that `brine bootstrap` can have the master
 * accept it before the minion first connects. The private key never leaves the host.
 */
export const minionKeyCommand: Command = {
  name: 'minion-key',
  summary: "make this host's minion key pair if missing and print its public key (used by bootstrap)",
  usage: USAGE,
  async run(argv, io) {
    const { values } = parseArgs({ args: argv, options: { config: { type: 'string', short: 'c' } } });
    if (!values.config) throw cliErrors.make('BRINE_ERR_CLI_USAGE', { detail: 'name the minion config', usage: USAGE });
    const { ensureIdentity, loadMinionConfig } = await import('@brine/minion');
    const config = loadMinionConfig(values.config);
    io.stdout(ensureIdentity(config.pki_dir).publicPem);
    return 0;
  },
};
