/**
 * The state functions whose Salt 3007 signature has no `**kwargs`: Salt refuses a keyword it does
 * not know there ("'x' is an invalid keyword argument for 'file.append'", and the whole run
 * stops). Every other Salt state function takes unknown keywords and ignores them (file.managed
 * and the other templated states hand them to the template). Read off Salt's signatures for the
 * modules Brine ships.
 */
const FIXED: ReadonlySet<string> = new Set([
  'file.retention_schedule',
  'file.line',
  'file.replace',
  'file.keyvalue',
  'file.blockreplace',
  'file.comment',
  'file.uncomment',
  'file.append',
  'file.prepend',
  'file.touch',
  'file.mknod',
  'file.decode',
  'file.cached',
  'file.not_cached',
  'file.pruned',
  'service.masked',
  'service.unmasked',
  'user.present',
  'user.absent',
  'group.present',
  'group.absent',
  'test.configurable_test_state',
  'test.check_pillar',
  'cron.present',
  'cron.env_present',
  'cron.env_absent',
  'git.present',
  'git.cloned',
  'host.present',
  'host.absent',
  'host.only',
  'locale.system',
  'locale.present',
  'mount.swap',
  'mount.fstab_present',
  'mount.fstab_absent',
  'pip.removed',
  'pip.uptodate',
  'ssh_auth.absent',
  'ssh_known_hosts.present',
  'ssh_known_hosts.absent',
  'sysctl.present',
  'timezone.system',
  'alternatives.install',
  'alternatives.remove',
  'alternatives.auto',
  'alternatives.set',
]);

/** Whether Salt's `state.fun` refuses keyword arguments it does not declare. */
export function saltRefusesUnknownArgs(fullName: string): boolean {
  return FIXED.has(fullName);
}

/** Salt's words for keywords a function without `**kwargs` does not take. */
export function invalidKeywordsMessage(fullName: string, keys: string[]): string {
  if (keys.length === 1) return `'${keys[0]}' is an invalid keyword argument for '${fullName}'`;
  const quoted = keys.map((k) => `'${k}'`);
  return `${quoted.slice(0, -1).join(', ')} and ${quoted[quoted.length - 1]} are invalid keyword arguments for '${fullName}'`;
}
