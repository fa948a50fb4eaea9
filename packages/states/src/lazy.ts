// `@brine/states/lazy`: the registries without any module's code, for `brine local` (the index
// loads every module). A compile checks states against signatureRegistry; a run loads the modules
// its states use with loadRegistry.
export { createRegistry, loadRegistry } from './registry.js';
export { signatureRegistry } from './signature-registry.js';
export { customModuleFiles, customModuleName, loadCustomModules, registryWith } from './custom-modules.js';
export { dirFileClient } from './host/dir-file-client.js';
