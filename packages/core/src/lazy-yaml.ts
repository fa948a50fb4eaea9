import { packageRequire } from './host/install-root.js';

type Yaml = typeof import('yaml');
let loaded: Yaml | undefined;

/**
 * The `yaml` package, read on first use (about 70 modules): `brine local test.ping` and most
 * commands never parse or print YAML. It is the same module instance `import 'yaml'` gives.
 */
export function yamlLib(): Yaml {
  return (loaded ??= packageRequire('core')('yaml') as Yaml);
}
