import { defineErrors } from '@brine/core';

export const cliErrors = defineErrors({
  BRINE_ERR_CLI_USAGE: '{detail}\nusage: {usage}',
  BRINE_ERR_CLI_BAD_FILE_ROOT: "file root '{root}' {detail}",
  BRINE_ERR_CLI_BAD_PILLAR_ROOT: "pillar root '{root}' {detail}",
  BRINE_ERR_CLI_BAD_FILE: 'cannot read {what} {file}: {detail}',
  BRINE_ERR_CLI_DEMO: 'the demo stopped: {detail}',
  BRINE_ERR_CLI_COMPILE: 'the state tree failed to compile: {count} error(s)',
  BRINE_ERR_CLI_NO_CONFIG:
    'no {role} config: no --config, no {env}, and {path} does not exist. Write {path} (the release has config/{role}.yaml with every option; set `master:` to your master), or run `brine {role} --config FILE`, or `brine {role} --master HOST` to try without a file',
  BRINE_ERR_CLI_BOOTSTRAP_SSH: '{host}: {step} over ssh failed: {detail}',
  BRINE_ERR_CLI_BOOTSTRAP_REPLY: "{host}: the target's answer to {step} is not what bootstrap expects ({detail}); none of it was used",
  BRINE_ERR_CLI_BOOTSTRAP_TARBALL: 'release tarball {file}: {detail}; give the brine-VERSION-linux-ARCH.tar.gz that `npm run release` builds',
  BRINE_ERR_CLI_BOOTSTRAP_ARCH: '{host}: the target is {machine} and no --tarball is for linux-{arch} (given: {given})',
  BRINE_ERR_CLI_BOOTSTRAP_MASTER_ADDRESS:
    "{host}: the master's minion channel listens on all interfaces ({interface}) and the target did not say which address it was reached from: give the address minions should dial with --master HOST",
  BRINE_ERR_CLI_BOOTSTRAP_NOT_CONNECTED: '{host}: minion {id} was {action} but did not connect to the master within {seconds} s; its last log lines: {log}',
});
