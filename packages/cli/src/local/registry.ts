import path from 'node:path';
import type { StateRegistry } from '@brine/core';
import { customModuleFiles, customModuleName, defaultRegistry, loadCustomModules, registryWith } from '@brine/states';

/**
 * The state registry of `brine local`: the shipped modules and the custom ones in the file
 * roots' `_states/` folders (every env; the first root holding a module name wins, as Salt's
 * file server resolves a path).
 */
export async function localRegistry(roots: Record<string, string[]>): Promise<StateRegistry> {
  const seen = new Set<string>();
  const files = Object.values(roots)
    .flat()
    .flatMap((root) => customModuleFiles(path.join(root, '_states')))
    .filter((f) => {
      const name = customModuleName(f.path)!;
      if (seen.has(name)) return false;
      seen.add(name);
      return true;
    });
  return files.length === 0 ? defaultRegistry() : registryWith(await loadCustomModules(files));
}
