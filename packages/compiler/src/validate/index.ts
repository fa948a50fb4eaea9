export { validateSls, type ValidateOptions, type ValidateReport, type ValidateResult } from './validate-sls.js';
export { ParamRecorder, ParamRef, ParamNode, type ParamKey } from './recording-params.js';
export { strictParams } from './strict-params.js';
export { validateErrors } from './errors.js';
