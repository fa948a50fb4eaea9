export type { IdPositions, PositionMap, RenderContext, RenderInput, RenderOutput, SaltHelpers } from './types.js';
export { renderSls, rendererPipe, templateVars, jinjaEnvironmentFor } from './render-sls.js';
export { renderTemplateString, type TemplateStringOptions, type TemplateStringResult } from './template-string.js';
export { createJinjaEnvironment, TemplateFailure, type JinjaEnvironment, type TemplateReader } from './jinja/environment.js';
export { builtinHelpers, saltObject, type HelperData, type HelperTable } from './jinja/salt-helpers.js';
export { loadYaml, collectPositions, type YamlResult, type YamlError } from './yaml-load.js';
