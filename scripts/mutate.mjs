// `npm run mutate -- <source files>`: mutation testing of those files (globs as in
// stryker.config.mjs work too) with only the unit tests that stryker.config.mjs lists for them.
// With no file: every listed module, which takes long on a small machine.
import { Stryker } from '@stryker-mutator/core';
import { matchesGlob } from 'node:path';
import config, { testsOf } from '../stryker.config.mjs';

// `--concurrency=N` overrides the config's (1 on a shared machine)
const flags = process.argv.slice(2).filter((a) => a.startsWith('--concurrency='));
const concurrency = flags.length ? Number(flags.at(-1).split('=')[1]) : config.concurrency;
const asked = process.argv
  .slice(2)
  .filter((a) => !a.startsWith('--'))
  .map((f) => f.replace(/^\.\//, ''));
const mutate = asked.length ? asked : Object.keys(testsOf);
const testFiles = new Set();
for (const file of mutate) {
  // a file may name a line range (Stryker's `file:from-to`)
  const name = file.replace(/:\d+(?::\d+)?-\d+(?::\d+)?$/, '');
  const listed = Object.entries(testsOf).filter(([pattern]) => pattern.replace(/:[\d:-]+$/, '') === name || matchesGlob(name, pattern));
  if (!listed.length) {
    console.error(`mutate: no tests are listed for ${file} in stryker.config.mjs (testsOf)`);
    process.exit(2);
  }
  for (const [, tests] of listed) for (const t of tests) testFiles.add(t);
}
// the clear-text reporter prints the score per file; the exit status is Stryker's own
await new Stryker({ ...config, concurrency, mutate, tap: { ...config.tap, testFiles: [...testFiles] } }).runMutationTest();
