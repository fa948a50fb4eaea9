import type { StateModule, StateRegistry } from '@brine/core';
import { testModule } from './modules/test.js';
import { cmdModule } from './modules/cmd.js';
import { fileModule } from './modules/file.js';
import { userModule } from './modules/user.js';
import { groupModule } from './modules/group.js';
import { pkgModule } from './modules/pkg.js';
import { serviceModule } from './modules/service.js';
import { sysctlModule } from './modules/sysctl.js';
import { alternativesModule } from './modules/alternatives.js';
import { gitModule } from './modules/git/index.js';
import { archiveModule } from './modules/archive/index.js';
import { pkgrepoModule } from './modules/pkgrepo/index.js';
import { pipModule } from './modules/pip.js';
import { hostModule } from './modules/host.js';
import { timezoneModule } from './modules/timezone.js';
import { localeModule } from './modules/locale.js';
import { sshKnownHostsModule } from './modules/ssh_known_hosts.js';
import { debconfModule } from './modules/debconf.js';
import { mysqlDatabaseModule } from './modules/mysql/database.js';
import { mysqlGrantsModule } from './modules/mysql/grants.js';
import { mysqlUserModule } from './modules/mysql/user.js';
import { cronModule } from './modules/cron.js';
import { sshAuthModule } from './modules/ssh_auth.js';
import { moduleModule } from './modules/module.js';
import { mountModule } from './modules/mount.js';
import { ufwModule } from './modules/ufw.js';
import { createRegistry } from './registry.js';

// Every module's code, loaded with this file: for the master, the minion and tests. `brine local`
// compiles against the signatures (signature-registry.ts) and loads only the modules a run uses
// (loadRegistry in registry.ts).

/** Every state module Brine ships. */
function allModules(): StateModule[] {
  return [
    testModule(),
    cmdModule(),
    fileModule(),
    userModule(),
    groupModule(),
    pkgModule(),
    serviceModule(),
    sysctlModule(),
    alternativesModule(),
    gitModule(),
    archiveModule(),
    pkgrepoModule(),
    pipModule(),
    hostModule(),
    timezoneModule(),
    localeModule(),
    sshKnownHostsModule(),
    debconfModule(),
    mysqlDatabaseModule(),
    mysqlUserModule(),
    mysqlGrantsModule(),
    cronModule(),
    sshAuthModule(),
    moduleModule(),
    mountModule(),
    ufwModule(),
  ];
}

/** The registry with every module Brine ships. */
export function defaultRegistry(): StateRegistry {
  return createRegistry(allModules());
}
