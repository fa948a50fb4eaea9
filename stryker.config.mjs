// Mutation testing (StrykerJS): `npm run mutate -- <source files>` (scripts/mutate.mjs) mutates
// those files and runs only the unit tests listed for them below, each test file in its own
// `node` process on Node's type stripping, as `tap` does. Not part of `npm test`: a module's run
// takes minutes. End-to-end tests (test/) run the built CLI, which mutants never reach, so only
// the packages' own tests are listed.

/** The unit tests that exercise each mutated source file. */
export const testsOf = {
  'packages/master/src/keys.ts': ['packages/master/test/key-manager.test.ts'],
  'packages/master/src/new-key-limiter.ts': [
    'packages/master/test/new-key-limiter.test.ts',
    'packages/master/test/new-key-limiter-edges.test.ts',
    'packages/master/test/key-manager.test.ts',
  ],
  'packages/master/src/guess-limiter.ts': ['packages/master/test/guess-limiter.test.ts', 'packages/master/test/guess-limiter-edges.test.ts'],
  'packages/master/src/ui-sessions.ts': [
    'packages/master/test/ui-sessions.test.ts',
    'packages/master/test/ui-sessions-edges.test.ts',
    'packages/master/test/console-auth.test.ts',
  ],
  // API auth: the bearer and console-session check of every request, and signing in and out
  'packages/master/src/api.ts:106-131': ['packages/master/test/console-auth.test.ts', 'packages/master/test/api-auth.test.ts'],
  'packages/master/src/routes/ui.ts:38-73': [
    'packages/master/test/console-auth.test.ts',
    'packages/master/test/api-auth.test.ts',
    'packages/master/test/console-cookie-tls.test.ts',
  ],
  // cluster-link.test.ts runs the same on a real PostgreSQL: too slow for every mutant
  'packages/master/src/cluster.ts': ['packages/master/test/cluster-follower.test.ts', 'packages/master/test/cluster-timers.test.ts'],
  'packages/master/src/compile-pool.ts': [
    'packages/master/test/compile-pool.test.ts',
    'packages/master/test/compile-pool-hold.test.ts',
    'packages/master/test/compile-pool-lifecycle.test.ts',
    'packages/master/test/compile-pool-internals.test.ts',
  ],
  'packages/minion/src/spool.ts': [
    'packages/minion/test/spool-store.test.ts',
    'packages/minion/test/spool-config.test.ts',
    'packages/minion/test/spool-errors.test.ts',
    'packages/minion/test/spool-sender.test.ts',
    'packages/minion/test/job-dedup.test.ts',
  ],
  'packages/minion/src/spool-sender.ts': [
    'packages/minion/test/spool-sender.test.ts',
    'packages/minion/test/spool-sender-paths.test.ts',
    'packages/minion/test/job-dedup.test.ts',
  ],
  'packages/runtime/src/*.ts': [
    'packages/runtime/test/requisite-status.test.ts',
    'packages/runtime/test/run-low-state.test.ts',
    'packages/runtime/test/run-low-state-edges.test.ts',
    'packages/runtime/test/run-low-state-paths.test.ts',
    'packages/runtime/test/onfail-stop.test.ts',
    'packages/runtime/test/unsupported-args.test.ts',
    'packages/runtime/test/salt-conformance.test.ts',
  ],
};

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'tap',
  plugins: ['@stryker-mutator/tap-runner'],
  // per test file: a mutant runs only the test files that reach it
  coverageAnalysis: 'perTest',
  tap: {
    testFiles: [...new Set(Object.values(testsOf).flat())],
    nodeArgs: ['--import=./scripts/tap-ts-hooks.mjs', '-r', '{{hookFile}}', '{{testFile}}'],
  },
  mutate: Object.keys(testsOf),
  // the sandbox is a copy of the sources and tests; node_modules is linked into it. Of test/,
  // only the fixtures (Salt's conformance records, read by the runtime's tests) are needed.
  ignorePatterns: ['**/dist', '/test/*', '!/test/fixtures', '/bench', '/examples', '/docs', '/.tools', '**/.tap', '/coverage', '/reports'],
  concurrency: 2,
  timeoutMS: 20_000,
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  tempDirName: '.stryker-tmp',
  cleanTempDir: true,
  thresholds: { high: 90, low: 80 },
};
