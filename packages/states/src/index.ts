export { createRegistry, defaultRegistry, allModules } from './registry.js';
export { callState, callModWatch, hasModWatch, bindArgs, moduleAvailability } from './call-state.js';
export { GLOBAL_STATE_ARGS, isGlobalStateArg } from './global-args.js';
export { statesErrors } from './errors.js';
export { testModule, watchedWithChanges } from './modules/test.js';
export { cmdModule } from './modules/cmd.js';
export { dirFileClient, parseSaltUrl } from './host/dir-file-client.js';
export { fileModule } from './modules/file.js';
export { fileDiff, lineDiff, unifiedDiffLines } from './util/diff.js';
