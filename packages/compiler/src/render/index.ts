export type { IdPositions, PositionMap, RenderContext, RenderInput, RenderOutput, SaltHelpers } from './types.js';
export { renderSls, rendererPipe, templateVars, jinjaEnvironmentFor, gpgBlocks, PGP_MESSAGE } from './render-sls.js';
export {
  renderTemplateString,
  createJinjaEnvironment,
  TemplateFailure,
  builtinHelpers,
  saltObject,
  loadYaml,
  collectPositions,
  type TemplateStringOptions,
  type TemplateStringResult,
  type JinjaEnvironment,
  type TemplateReader,
  type HelperData,
  type HelperTable,
  type YamlResult,
  type YamlError,
} from '@brine/jinja';
export { minionOpts, type OptsView } from './opts.js';
