import type { Command } from '../command.js';
import { localCommand } from './local.js';

/** Every verb of the `brine` command; add a line per verb. */
export const commands: Command[] = [localCommand];
