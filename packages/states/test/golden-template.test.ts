import t from 'tap';
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { execCaller, execContext, execRegistry } from '@brine/exec';
import { createRegistry, fileModule } from '../src/index.js';
import { goldenCases, orderFree, runGoldenCase, treeSnapshot } from './golden-cases.js';

/**
 * File templates (`template: jinja`) against Salt 3007.10's results (golden/template, recorded by
 * golden/regenerate.sh): imports from a map.jinja beside the template through the file client,
 * Salt's context variables (source, name, user, group, mode, attrs, saltenv; no sls or tpl*),
 * `defaults` updated by `context` over them, the state's extra keyword arguments, host calls
 * (`slsutil.serialize`, `cmd.run`, `file.file_exists`) answered by the execution functions here,
 * and file.recurse with a template. The files Salt's apply wrote (salt-tree.json) must be written
 * alike, byte for byte. file.recurse's sections are compared sorted (orderFree).
 */

const functions = execRegistry();
const grains = { id: 'anchor', shell: '/bin/sh' };
const pillar = { conf: { port: 9090 } };
const exec = execCaller(functions, execContext({ registry: functions, grains, pillar }));
const registry = createRegistry([fileModule()]);

for (const caseDir of goldenCases('template')) {
  for (const mode of ['run', 'test'] as const) {
    t.test(`template/${basename(caseDir)} ${mode}`, async (t) => {
      const saltRoot = `/tmp/brine-golden/template-${basename(caseDir)}`;
      const want = JSON.parse(readFileSync(join(caseDir, 'salt-tree.json'), 'utf8')) as Record<string, unknown>;
      const after =
        mode === 'run'
          ? (root: string) => t.same(treeSnapshot(root), JSON.parse(JSON.stringify(want).split(saltRoot).join(root)), 'files written as Salt wrote them')
          : undefined;
      const templateContext = { grains, pillar, opts: { id: 'anchor' } };
      for (const r of await runGoldenCase(caseDir, mode, { registry: () => registry, exec, templateContext, after }))
        t.same(orderFree(r.got), orderFree(r.want), r.tag);
    });
  }
}
