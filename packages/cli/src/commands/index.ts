import type { Command } from '../command.js';
import { localCommand } from './local.js';
import { masterCommand } from './master.js';
import { minionCommand, minionsCommand } from './minion.js';
import { keyCommand } from './key.js';
import { runCommand } from './run.js';
import { jobsCommand } from './jobs.js';
import { eventsCommand } from './events.js';
import { demoCommand } from './demo.js';
import { validateCommand } from './validate.js';
import { pillarCommand } from './pillar.js';
import { storeCommand } from './store.js';
import { callCommand } from './call.js';
import { doctorCommand } from './doctor.js';
import { bootstrapCommand } from './bootstrap.js';
import { minionKeyCommand } from './minion-key.js';

/** Every verb of the `brine` command; add a line per verb. */
export const commands: Command[] = [
  localCommand,
  masterCommand,
  minionCommand,
  minionsCommand,
  keyCommand,
  runCommand,
  jobsCommand,
  eventsCommand,
  demoCommand,
  validateCommand,
  pillarCommand,
  storeCommand,
  callCommand,
  doctorCommand,
  bootstrapCommand,
  minionKeyCommand,
];
