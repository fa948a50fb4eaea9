import type { Command } from '../command.js';

/**
 * Every verb of the `brine` command, in the order `brine --help` lists them; add a line per verb.
 * Each command's module (and what it imports: the master's stack, the compiler, the store) is
 * loaded only when that verb runs: `brine local test.ping` starts without the others.
 */
const loaders = new Map<string, () => Promise<Command>>([
  ['local', async () => (await import('./local.js')).localCommand],
  ['master', async () => (await import('./master.js')).masterCommand],
  ['minion', async () => (await import('./minion.js')).minionCommand],
  ['minions', async () => (await import('./minion.js')).minionsCommand],
  ['key', async () => (await import('./key.js')).keyCommand],
  ['run', async () => (await import('./run.js')).runCommand],
  ['jobs', async () => (await import('./jobs.js')).jobsCommand],
  ['orch', async () => (await import('./orch.js')).orchCommand],
  ['events', async () => (await import('./events.js')).eventsCommand],
  ['event', async () => (await import('./event.js')).eventCommand],
  ['demo', async () => (await import('./demo.js')).demoCommand],
  ['validate', async () => (await import('./validate.js')).validateCommand],
  ['pillar', async () => (await import('./pillar.js')).pillarCommand],
  ['store', async () => (await import('./store.js')).storeCommand],
  ['call', async () => (await import('./call.js')).callCommand],
  ['doctor', async () => (await import('./doctor.js')).doctorCommand],
  ['bootstrap', async () => (await import('./bootstrap.js')).bootstrapCommand],
  ['minion-key', async () => (await import('./minion-key.js')).minionKeyCommand],
  ['fileserver', async () => (await import('./fileserver.js')).fileserverCommand],
  ['user', async () => (await import('./user.js')).userCommand],
  ['token', async () => (await import('./token.js')).tokenCommand],
  ['audit', async () => (await import('./audit.js')).auditCommand],
]);

/** The verb's command, loaded now; undefined for a word that is not a verb. */
export function loadCommand(name: string): Promise<Command> | undefined {
  return loaders.get(name)?.();
}

/** Every command (for the usage listing, which names them all). */
export function allCommands(): Promise<Command[]> {
  return Promise.all([...loaders.values()].map((load) => load()));
}
