import t from 'tap';
import { basename } from 'node:path';
import { execCaller, execContext, execRegistry } from '@brine/exec';
import { createRegistry, moduleModule } from '../src/index.js';
import { goldenCases, runGoldenCase } from './golden-cases.js';

/**
 * module.run (the new `- mod.fun: [args]` syntax and the legacy `name: mod.fun` one) and
 * module.wait against Salt 3007.10's results (golden/module), with the real execution functions.
 */

const functions = execRegistry();
const exec = execCaller(functions, execContext({ registry: functions, grains: { shell: '/bin/bash', osarch: 'amd64' } }));
const registry = createRegistry([moduleModule()]);

for (const caseDir of goldenCases('module')) {
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
