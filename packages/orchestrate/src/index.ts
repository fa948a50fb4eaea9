export { runOrchestration, orchestrationRegistry, type OrchestrateOptions, type OrchestrateOutcome } from './engine.js';
export { renderOrchestration, type RenderOrchestrationOptions } from './render.js';
export { saltModule, type SaltModuleOptions } from './salt-module.js';
export { stepState, boundArguments, type StepState } from './bind.js';
export { stateRunSucceeded } from './minion-returns.js';
export { orchestrateErrors, type OrchestrateErrorCode } from './errors.js';
export type { JobCall, JobOutcome, MinionReturn, OrchestrationJobs, RunnerCall, RunnerResult } from './jobs.js';
