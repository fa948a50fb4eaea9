import { defineErrors } from '@brine/core';

/** The runtime's coded errors. A failing state is not one of these: it is a result with a comment. */
export const runtimeErrors = defineErrors({
  BRINE_ERR_RUNTIME_BAD_LOWSTATE: 'the low state must be a list of low chunks: {detail}',
});

export type RuntimeErrorCode = keyof typeof runtimeErrors.table;
