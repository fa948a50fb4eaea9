import { defineErrors } from '@brine/core';

export const execErrors = defineErrors({
  // Salt's wording for a call that does not fit the function's signature
  BRINE_ERR_EXEC_BAD_ARGS: 'Passed invalid arguments to {fun}: {detail}',
  BRINE_ERR_EXEC_UNKNOWN_FUNCTION: "'{fun}' is not available.",
  BRINE_ERR_EXEC_FAILED: '{fun} failed: {detail}',
  BRINE_ERR_EXEC_DUPLICATE: 'execution function {fun} registered twice',
});
