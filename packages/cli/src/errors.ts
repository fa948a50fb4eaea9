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
});
