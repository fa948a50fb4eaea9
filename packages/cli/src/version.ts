import { readFileSync } from 'node:fs';

/** The version of this Brine, read from the repository's package.json beside the packages. */
export const BRINE_VERSION: string = (() => {
  try {
    return (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
})();
