import type { ExecFunction } from '../function.js';
import { cmdFunctions } from './cmd.js';
import { configFunctions } from './config.js';
import { fileFunctions } from './file.js';
import { grainsFunctions } from './grains.js';
import { grainsSetFunctions } from './grains-set.js';
import { cpFunctions } from './cp.js';
import { mineFunctions } from './mine.js';
import { networkFunctions } from './network.js';
import { pillarFunctions } from './pillar.js';
import { pkgFunctions } from './pkg.js';
import { pkgRefreshFunctions } from './pkg-refresh.js';
import { serviceFunctions } from './service.js';
import { statusFunctions } from './status.js';
import { sysFunctions } from './sys.js';
import { localeFunctions } from './locale.js';
import { mountFunctions } from './mount.js';
import { debconfFunctions } from './debconf.js';
import { mysqlFunctions } from './mysql.js';
import { testFunctions } from './test.js';
import { timezoneFunctions } from './timezone.js';
import { userFunctions } from './user.js';

/** Every shipped execution module: one file under modules/ and one line here per Salt module. */
export const EXEC_MODULES: ExecFunction[][] = [
  cmdFunctions,
  configFunctions,
  fileFunctions,
  grainsFunctions,
  grainsSetFunctions,
  cpFunctions,
  mineFunctions,
  networkFunctions,
  pillarFunctions,
  pkgFunctions,
  pkgRefreshFunctions,
  serviceFunctions,
  statusFunctions,
  sysFunctions,
  localeFunctions,
  mountFunctions,
  debconfFunctions,
  mysqlFunctions,
  testFunctions,
  timezoneFunctions,
  userFunctions,
];
