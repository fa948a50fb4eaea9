export { runLowState, type RunOptions, type RunOutcome } from './run-low-state.js';
export { runtimeErrors, type RuntimeErrorCode } from './errors.js';
export { formatStartTime } from './clock.js';
export { EVAL_KINDS, type EvalKind } from './requisite-status.js';
