import type { Command } from '../command.js';
import { LOCAL_USAGE } from '../local/usage.js';

export const localCommand: Command = {
  name: 'local',
  summary: 'compile and run states on this host, no master (like salt-call --local)',
  usage: LOCAL_USAGE,
  async run(argv, io) {
    // loaded here: the compiler, templates and state modules are for this command only
    const { runLocal } = await import('../local/run-local.js');
    return runLocal(argv, io);
  },
};
