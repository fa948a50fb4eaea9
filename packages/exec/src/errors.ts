import { defineErrors } from '@brine/core';

export const execErrors = defineErrors({
  // Salt's wording for a call that does not fit the function's signature
  BRINE_ERR_EXEC_BAD_ARGS: 'Passed invalid arguments to {fun}: {detail}',
  BRINE_ERR_EXEC_UNKNOWN_FUNCTION: "'{fun}' is not available.",
  BRINE_ERR_EXEC_FAILED: '{fun} failed: {detail}',
  BRINE_ERR_EXEC_DUPLICATE: 'execution function {fun} registered twice',
  BRINE_ERR_EXEC_NO_FILE_SERVER: '{fun}: there is no salt:// file server here ({detail})',
  BRINE_ERR_EXEC_CP_TEMPLATE: '{fun}: template={template} is not supported: Brine does not render the source and destination paths, give them rendered',
  BRINE_ERR_EXEC_NO_GRAINS_FILE: '{fun}: grains cannot be persisted here ({detail})',
  BRINE_ERR_EXEC_GRAINS_FILE: '{fun}: the grains file {file} {detail}',
});
