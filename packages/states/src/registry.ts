import type { StateFunction, StateModule, StateRegistry } from '@brine/core';
import { statesErrors } from './errors.js';
import { MODULE_LOADERS } from './module-loaders.js';

/** A registry keyed `module.function` over the given modules. */
export function createRegistry(modules: StateModule[] = []): StateRegistry {
  const byName = new Map<string, StateModule>();
  for (const m of modules) {
    if (byName.has(m.name)) throw statesErrors.make('BRINE_ERR_STATES_DUPLICATE_MODULE', { name: m.name });
    byName.set(m.name, m);
  }
  return {
    module(name: string): StateModule | undefined {
      return byName.get(name);
    },
    lookup(state: string, fun: string): { module: StateModule; fn: StateFunction } | undefined {
      const module = byName.get(state);
      if (!module || !Object.hasOwn(module.functions, fun)) return undefined;
      return { module, fn: module.functions[fun] };
    },
    list(): string[] {
      const out: string[] = [];
      for (const m of byName.values()) for (const f of Object.keys(m.functions)) out.push(`${m.name}.${f}`);
      return out.sort();
    },
  };
}

/**
 * A registry of the shipped modules among `names`, each module's code loaded now and no other's
 * (a state run needs only the modules of its states; unknown names are left out, as unknown states
 * are).
 */
export async function loadRegistry(names: Iterable<string>): Promise<StateRegistry> {
  const wanted = [...new Set(names)].filter((n) => Object.hasOwn(MODULE_LOADERS, n)).sort();
  return createRegistry(await Promise.all(wanted.map((n) => MODULE_LOADERS[n]!())));
}
