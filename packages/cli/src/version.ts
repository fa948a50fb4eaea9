import { readFileSync } from 'node:fs';
import path from 'node:path';
import { installRoot } from '@brine/core';

/** The version of this Brine, read from the repository's package.json beside the packages. */
export const BRINE_VERSION: string = (() => {
  try {
    return (JSON.parse(readFileSync(path.join(installRoot(), 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
})();
