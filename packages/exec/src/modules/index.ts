import type { ExecFunction } from '../function.js';
import { cmdFunctions } from './cmd.js';
import { configFunctions } from './config.js';
import { grainsFunctions } from './grains.js';
import { pillarFunctions } from './pillar.js';
import { sysFunctions } from './sys.js';
import { testFunctions } from './test.js';

/** Every shipped execution module: one file under modules/ and one line here per Salt module. */
export const EXEC_MODULES: ExecFunction<any>[][] = [
  cmdFunctions,
  configFunctions,
  grainsFunctions,
  pillarFunctions,
  sysFunctions,
  testFunctions,
];
