// Which third-party code goes inside the CLI's bundle (scripts/bundle.mjs) and the startup
// snapshot (scripts/snapshot.mjs): nunjucks and what it requires, its optional file watcher left
// out, and croner (core's schedules). Both scripts hash this file into their up-to-date stamp, so
// a change here makes both again.

const INSIDE = /^(nunjucks|croner)(\/|$)/;
const INSIDE_FROM = /\/node_modules\/(nunjucks|asap|a-sync-waterfall)\//;
const OPTIONAL = ['chokidar', 'fsevents'];

/**
 * esbuild's answer for a bare import that goes inside: undefined (bundle it) or external (an
 * optional part); null when the import is not inside and the caller decides.
 */
export function insideAnswer(args) {
  if (!INSIDE.test(args.path) && !INSIDE_FROM.test(args.importer)) return null;
  return OPTIONAL.includes(args.path) ? { external: true } : undefined;
}
