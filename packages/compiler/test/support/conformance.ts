import { readdirSync, readFileSync, existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const CONFORMANCE = fileURLToPath(new URL('../../../../test/fixtures/conformance/', import.meta.url));

export interface ConformanceCase {
  name: string;
  dir: string;
  tree: string;
  low: unknown;
  retcodes: Record<string, unknown>;
}

export function conformanceCases(): ConformanceCase[] {
  return readdirSync(CONFORMANCE)
    .filter((n) => statSync(join(CONFORMANCE, n)).isDirectory() && existsSync(join(CONFORMANCE, n, 'salt-low.json')))
    .sort()
    .map((name) => {
      const dir = join(CONFORMANCE, name);
      return {
        name,
        dir,
        tree: join(dir, 'tree'),
        low: JSON.parse(readFileSync(join(dir, 'salt-low.json'), 'utf8')),
        retcodes: JSON.parse(readFileSync(join(dir, 'salt-retcodes.json'), 'utf8')),
      };
    });
}
