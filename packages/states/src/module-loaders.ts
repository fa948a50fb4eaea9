import type { StateModule } from '@brine/core';

/**
 * Each shipped state module by name, its code loaded when asked for: a state run loads the
 * modules its states use and no other (each is a chunk of its own in the CLI's bundle).
 * default-registry.ts holds the same modules loaded at once; a test keeps the two alike.
 */
export const MODULE_LOADERS: Record<string, () => Promise<StateModule>> = {
  alternatives: async () => (await import('./modules/alternatives.js')).alternativesModule(),
  archive: async () => (await import('./modules/archive/index.js')).archiveModule(),
  cmd: async () => (await import('./modules/cmd.js')).cmdModule(),
  cron: async () => (await import('./modules/cron.js')).cronModule(),
  debconf: async () => (await import('./modules/debconf.js')).debconfModule(),
  file: async () => (await import('./modules/file.js')).fileModule(),
  git: async () => (await import('./modules/git/index.js')).gitModule(),
  group: async () => (await import('./modules/group.js')).groupModule(),
  host: async () => (await import('./modules/host.js')).hostModule(),
  locale: async () => (await import('./modules/locale.js')).localeModule(),
  module: async () => (await import('./modules/module.js')).moduleModule(),
  mount: async () => (await import('./modules/mount.js')).mountModule(),
  mysql_database: async () => (await import('./modules/mysql/database.js')).mysqlDatabaseModule(),
  mysql_grants: async () => (await import('./modules/mysql/grants.js')).mysqlGrantsModule(),
  mysql_user: async () => (await import('./modules/mysql/user.js')).mysqlUserModule(),
  pip: async () => (await import('./modules/pip.js')).pipModule(),
  pkg: async () => (await import('./modules/pkg.js')).pkgModule(),
  pkgrepo: async () => (await import('./modules/pkgrepo/index.js')).pkgrepoModule(),
  service: async () => (await import('./modules/service.js')).serviceModule(),
  ssh_auth: async () => (await import('./modules/ssh_auth.js')).sshAuthModule(),
  ssh_known_hosts: async () => (await import('./modules/ssh_known_hosts.js')).sshKnownHostsModule(),
  sysctl: async () => (await import('./modules/sysctl.js')).sysctlModule(),
  test: async () => (await import('./modules/test.js')).testModule(),
  timezone: async () => (await import('./modules/timezone.js')).timezoneModule(),
  ufw: async () => (await import('./modules/ufw.js')).ufwModule(),
  user: async () => (await import('./modules/user.js')).userModule(),
};
