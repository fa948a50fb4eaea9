// Lets the tests run on Node's own TypeScript support (type stripping) instead of a compiler:
// sources import each other as `./x.js` (what tsc emits), so a relative `.js` import made from a
// `.ts` file is answered with the `.ts` file beside it when there is no `.js` one.
import { existsSync } from 'node:fs';
import { registerHooks } from 'node:module';

registerHooks({
  resolve(specifier, context, next) {
    if (specifier.endsWith('.js') && specifier.startsWith('.') && context.parentURL?.endsWith('.ts')) {
      const ts = new URL(`${specifier.slice(0, -3)}.ts`, context.parentURL);
      if (existsSync(ts)) return next(ts.href, context);
    }
    return next(specifier, context);
  },
});
