/** Globs live in core (requisites, targets and includes all match the same way); re-exported here for the compiler's users. */
export { globMatch, globToRegExp, isGlob } from '@brine/core';
