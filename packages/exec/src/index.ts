import { EXEC_MODULES } from './modules/index.js';
import { ExecRegistry } from './registry.js';

export * from './errors.js';
export * from './function.js';
export * from './registry.js';
export * from './call.js';
export * from './context.js';
export { traverse } from './traverse.js';
export { readGrainsFile } from './modules/grains-set.js';
export { which, shlexSplit, defaultShell, runCmd } from './modules/cmd.js';
export * from './host/apt.js';
export {
  type Entry as AptEntry,
  SourcesList as AptSourcesList,
  entryText as aptEntryText,
  lineOptions as aptLineOptions,
  parseEntry as parseAptEntry,
  saltInvalid as aptSaltInvalid,
  signedByOf as aptSignedBy,
  repoDict as aptRepoDict,
  listRepos as aptListRepos,
} from './host/apt-sources.js';
export * from './host/accounts.js';
export * from './host/systemd.js';
export * from './host/sysv.js';
export * from './host/timezone.js';
export * from './host/locale.js';
export * from './host/known-hosts.js';
export * from './host/authorized-keys.js';
export * from './host/crontab.js';
export * from './host/hosts-file.js';
export * from './host/debconf.js';
export * from './host/mysql/index.js';
export * from './host/text-replace.js';
export { EXEC_MODULES };

/** A new registry holding every shipped execution function (callers may add their own to it). */
export function execRegistry(): ExecRegistry {
  return new ExecRegistry().register(...EXEC_MODULES.flat());
}
export * from './host/mounts.js';
export * from './host/sha-crypt.js';
