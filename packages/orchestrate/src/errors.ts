import { defineErrors } from '@brine/core';

/** The orchestrate package's coded errors. A failing step is not one of these: it is a result with a comment. */
export const orchestrateErrors = defineErrors({
  BRINE_ERR_ORCH_HOST_ACCESS: 'an orchestration runs on the master and touches no host: {what} is not available to step {step}',
  BRINE_ERR_ORCH_COMPILE: 'the orchestration {sls} did not compile:\n{detail}',
});

export type OrchestrateErrorCode = keyof typeof orchestrateErrors.table;
