import type { StateFunction, StateModule, StateRegistry } from '@brine/core';
import { statesErrors } from './errors.js';
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

/** A registry keyed `module.function` over the given modules. */
export function createRegistry(modules: StateModule[] = []): StateRegistry {
  const byName = new Map<string, StateModule>();
  for (const m of modules) {
    if (byName.has(m.name)) throw statesErrors.make('BRINE_ERR_STATES_DUPLICATE_MODULE', { name: m.name });
    byName.set(m.name, m);
  }
  return {
    module(name: string): StateModule | undefined {
      return byName.get(name);
    },
    lookup(state: string, fun: string): { module: StateModule; fn: StateFunction } | undefined {
      const module = byName.get(state);
      if (!module || !Object.hasOwn(module.functions, fun)) return undefined;
      return { module, fn: module.functions[fun] };
    },
    list(): string[] {
      const out: string[] = [];
      for (const m of byName.values()) for (const f of Object.keys(m.functions)) out.push(`${m.name}.${f}`);
      return out.sort();
    },
  };
}

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
