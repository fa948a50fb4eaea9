/** Kept apart from options.ts so that listing the commands does not load the compiler. */
export const LOCAL_USAGE =
  'brine local <function> [args] [key=value...] [--file-root DIR] [--file-root ENV=DIR] [--pillar-root DIR] [--pillar-root ENV=DIR] ' +
  '[--config minion.yaml] [--id ID] ' +
  '[--grains FILE] [--pillar FILE] [--params FILE] [--out highstate|json|yaml|nested|raw|txt|quiet] [--no-color] [--state-output full|terse|mixed|changes]';
