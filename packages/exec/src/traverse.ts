import { isDict, lookupPath, NOT_FOUND } from '@brine/core';

/** Salt's traverse_dict_and_list, with its default of '' for a path that leads nowhere. */
export function traverse(data: unknown, key: string, dflt: unknown = '', delimiter = ':'): unknown {
  const v = lookupPath(data, key, delimiter);
  return v === NOT_FOUND ? dflt : v;
}

export { isDict };
