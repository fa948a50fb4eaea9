/**
 * The Jinja dialect of Brine (nunjucks with Python semantics, Salt's tags, filters and `salt`
 * helpers) and the Salt-flavoured YAML loader. Shared by the compiler (SLS files rendered on the
 * master) and the states (`file.managed template: jinja` rendered where the state runs).
 */
export type { IdPositions, PositionMap } from './positions.js';
export { renderTemplateString, saltTemplateVars, templatePathVars, type TemplateStringOptions, type TemplateStringResult } from './template-string.js';
export { importCacheStats } from './parse-cache.js';
export { createJinjaEnvironment, TemplateFailure, type JinjaEnvironment, type TemplateReader } from './environment.js';
export { setRenderTimeout } from './dialect-runtime.js';
export { builtinHelpers, saltObject, type HelperData, type HelperFn, type HelperTable, type LogLevel } from './salt-helpers.js';
export { loadYaml, collectPositions, topLevelKeyOrder, type YamlResult, type YamlError } from './yaml-load.js';
export { fastYaml, type FastPositions } from './yaml-fast.js';
export { deepCopy, traverse } from './traverse.js';
export { PY_OBJECT, pyHooks, type PyObjectHooks } from './py-object.js';
export {
  askable,
  describeHostCall,
  hostCallKey,
  HostCallError,
  HostCallRecorder,
  HOST_FN,
  MJS_RENDER_CALL,
  type CallSite,
  type HostAnswer,
  type HostAnswers,
  type HostCall,
  type HostCallRecord,
} from './host-calls.js';
export { pyYamlDump } from './py-yaml-dump.js';
export { pyJson } from './serialize.js';
