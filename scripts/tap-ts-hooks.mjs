// Lets the tests run on Node's own TypeScript support (type stripping) instead of a compiler:
// sources import each other as `./x.js` (what tsc emits), so a relative `.js` import made from a
// `.ts` file is answered with the `.ts` file beside it when there is no `.js` one.
import { existsSync } from 'node:fs';
import { createRequire, registerHooks } from 'node:module';

registerHooks({
  resolve(specifier, context, next) {
    if (specifier.endsWith('.js') && specifier.startsWith('.') && context.parentURL?.endsWith('.ts')) {
      const ts = new URL(`${specifier.slice(0, -3)}.ts`, context.parentURL);
      if (existsSync(ts)) return next(ts.href, context);
    }
    return next(specifier, context);
  },
});

// tap preloads its process tracking into every child of a test (NODE_OPTIONS). Brine's compile
// workers run under Node's permission model, where that preload cannot start (it needs
// process.binding): children of the tests go without it (coverage is off anyway). This file is
// preloaded into such a worker too when it runs from the TypeScript sources: there, nothing spawns.
const onSpawn = process.permission ? undefined : createRequire(import.meta.url)('process-on-spawn');
onSpawn?.addListener((opts) => {
  const options = opts.env.NODE_OPTIONS;
  if (!options?.includes('processinfo')) return;
  const rest = options.replace(/"?--(?:import|loader|experimental-loader)=[^"\s]*@tapjs[/\\]processinfo[^"\s]*"?/g, '').trim();
  const { NODE_OPTIONS: _drop, ...env } = opts.env;
  opts.env = rest ? { ...env, NODE_OPTIONS: rest } : env;
});
