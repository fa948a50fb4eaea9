import { defineErrors } from '@brine/core';

/**
 * What `brine validate` reports beside the compiler's own diagnostics. Kept apart from the
 * compiler's table because only the validate pass produces them.
 */
export const validateErrors = defineErrors({
  BRINE_ERR_VALIDATE_DICT_DECLARATION:
    "ID '{id}': state declaration '{state}' is a dictionary (Idem's spelling); validate reads it as a list of its arguments, but brine local and state.apply need '- key: value' items",
});
