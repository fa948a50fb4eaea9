import path from 'node:path';
import type { LowChunk, StateRegistry } from '@brine/core';
import { customModuleFiles, customModuleName, loadCustomModules, loadRegistry, registryWith, signatureRegistry } from '@brine/states/lazy';

/**
 * The state modules of `brine local`: the shipped ones and the custom ones in the file roots'
 * `_states/` folders (every env; the first root holding a module name wins, as Salt's file server
 * resolves a path). A compile checks states against the shipped modules' signatures; a run loads
 * the code of the shipped modules its states use, and no other.
 */
export interface LocalStates {
  /** Names, functions and arguments: what compiles and the function lists need. */
  schema: StateRegistry;
  /** The registry that runs `low`. */
  forRun(low: LowChunk[]): Promise<StateRegistry>;
}

export async function localStates(roots: Record<string, string[]>): Promise<LocalStates> {
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
  const custom = files.length === 0 ? [] : await loadCustomModules(files);
  const withCustom = (base: StateRegistry): StateRegistry => (custom.length === 0 ? base : registryWith(custom, base));
  return {
    schema: withCustom(signatureRegistry()),
    forRun: async (low) => withCustom(await loadRegistry(low.map((c) => c.state))),
  };
}
