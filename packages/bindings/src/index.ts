export { resolveBindings, type ResolveBindingsInput, type ResolvedBindings } from './resolve-bindings.js';
export { loadBindings, type LoadedBindings } from './load-bindings.js';
export {
  LAYERS,
  bindingsNameOf,
  isBindingsPath,
  memoryBindingsSource,
  type Layer,
  type BindingsFileRef,
  type BindingsSource,
} from './bindings-source.js';
export { dirBindingsSource } from './dir-bindings-source.js';
export {
  DEFAULT_CATEGORIES,
  categorize,
  categoryNames,
  comparePrecedence,
  type CategorySpec,
  type CategoryObject,
  type Categorization,
  type MinionFacts,
} from './categories.js';
export { formatExplain, type Explanation, type BindingRef, type ContributionRef } from './explanation.js';
export { mergeWithClassicPillar, nestNames } from './pillar-tree.js';
export { bindingsErrors, type BindingsErrorCode } from './errors.js';
export type { Binding, MultibindOptions, ConflictResolution, ValueSpec } from './binding.js';
