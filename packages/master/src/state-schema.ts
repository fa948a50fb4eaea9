import type { StateSchema } from '@brine/compiler';
import { unknownArgOf } from '@brine/core';
import { customModuleName, defaultRegistry } from '@brine/states';
import type { TreeSnapshot } from './file-roots.js';

const shipped = defaultRegistry();

/**
 * What the compiler checks state names against on the master: the shipped state modules plus the
 * custom ones of the tree's `_states/` folders. A custom module is known by its file name only
 * (the master never runs tree code), so any function of it passes.
 */
export function treeSchema(snap: TreeSnapshot): StateSchema {
  const custom = new Set<string>();
  for (const files of snap.files.values()) {
    for (const rel of files.keys()) {
      const parts = rel.split('/');
      const name = parts.length === 2 && parts[0] === '_states' ? customModuleName(parts[1]!) : undefined;
      if (name) custom.add(name);
    }
  }
  return {
    hasModule: (state) => custom.has(state) || shipped.module(state) !== undefined,
    hasFunction: (state, fun) => custom.has(state) || shipped.lookup(state, fun) !== undefined,
    unknownArg: (state, fun, key) => (custom.has(state) ? undefined : unknownArgOf(shipped, state, fun, key)),
  };
}
