import t from 'tap';
import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { CommandRunner } from '@brine/core';
import { execCaller, execContext, execRegistry } from '@brine/exec';
import { createRegistry, moduleModule } from '../src/index.js';
import { canUnshare, goldenCases, runGoldenCase } from './golden-cases.js';
import { namespaceRunner } from './ns-runner.js';

/**
 * module.run (the new `- mod.fun: [args]` syntax and the legacy `name: mod.fun` one) and
 * module.wait against Salt 3007.10's results (golden/module), with the real execution functions.
 */

const functions = execRegistry();
const exec = execCaller(functions, execContext({ registry: functions, grains: { shell: '/bin/bash', osarch: 'amd64' } }));
const registry = createRegistry([moduleModule()]);

// A case with `wrap` ran in Salt inside namespaces (ns.sh): below, through a namespace runner.
for (const caseDir of goldenCases('module').filter((c) => !existsSync(join(c, 'wrap')))) {
  for (const mode of ['run', 'test'] as const) {
    t.test(`module/${basename(caseDir)} ${mode}`, async (t) => {
      for (const r of await runGoldenCase(caseDir, mode, { registry: () => registry, exec })) t.same(r.got, r.want, r.tag);
    });
  }
}

t.test('module.run without execution functions says so', async (t) => {
  const { callState } = await import('../src/index.js');
  const { ctxFor } = await import('./helpers.js');
  const chunk = { __id__: 'x', __sls__: 'init', __env__: 'base', name: 'x', state: 'module', fun: 'run', 'test.ping': [], order: 1 };
  const got = await callState(registry, chunk, ctxFor(chunk));
  t.match(got, { result: false, comment: /not available/ });
});

/**
 * The namespaced cases (pkg.refresh_db: apt-get update against the case's own /etc/apt, whose
 * only source is a repository on disk): the execution functions' commands run in a mount
 * namespace set up by the case's ns.sh for the root the case runs in.
 */
const unshare = canUnshare();
for (const caseDir of goldenCases('module').filter((c) => existsSync(join(c, 'wrap')))) {
  for (const mode of ['run', 'test'] as const) {
    t.test(`module/${basename(caseDir)} ${mode}`, { skip: unshare ? false : 'needs root and unshare' }, async (t) => {
      const flags = readFileSync(join(caseDir, 'wrap'), 'utf8').trim().split(/\s+/).slice(1);
      let inner: CommandRunner | undefined;
      let root = '';
      const cmd: CommandRunner = { run: (c, o) => (inner ??= namespaceRunner(t, flags, `set -- '${root}' && . '${join(caseDir, 'ns.sh')}'`)).run(c, o) };
      const fns = execRegistry();
      const nsExec = execCaller(fns, execContext({ registry: fns, grains: { shell: '/bin/bash', osarch: 'amd64' }, cmd }));
      const registryAt = (r: string) => ((root = r), registry);
      // sh's `.` takes no arguments: the root goes in with `set --`, and ns.sh refuses an empty one.
      for (const r of await runGoldenCase(caseDir, mode, { registry: registryAt, exec: nsExec })) t.same(r.got, r.want, r.tag);
    });
  }
}
