export { resolveBindings, type ResolveBindingsInput, type ResolvedBindings } from './resolve-bindings.js';
export { loadBindings, type LoadedBindings } from './load-bindings.js';
export { bindingsNameOf, memoryBindingsSource, type Layer, type BindingsFileRef, type BindingsSource } from './bindings-source.js';
export { dirBindingsSource } from './dir-bindings-source.js';
export type { CategorySpec, MinionFacts } from './categories.js';
export { formatExplain, type Explanation } from './explanation.js';
export { mergeWithClassicPillar } from './pillar-tree.js';
