export { runLowState, type RunOptions, type RunOutcome } from './run-low-state.js';
export { runtimeErrors, type RuntimeErrorCode } from './errors.js';
export { isTrue, singleChunk, slsNames } from './state-run-args.js';
export { noStatesRunning, nothingMatched } from './no-states.js';
export { chunksForId, noIdMatch } from './sls-id.js';
