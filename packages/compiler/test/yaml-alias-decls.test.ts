/**
 * States that share their argument list, or their whole declaration, through a YAML alias. The
 * loader hands both IDs the same list (or object); the compile must not change what the other ID
 * reads. Salt 3007.10 (the oracle, on this tree) refuses `a` and `b` with "Too many functions
 * declared in state 'a' in SLS 'one'. Please choose one of the following: succeed_without_changes,
 * succeed_without_changes": its short-dec handling appends the function to the shared list once
 * per ID. It compiles `c` and `d`. Brine compiles all four, each with its own function and order:
 * the alias means "the same arguments", and a file Salt compiles reads the same here.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { compileHighstate, dirTree } from '../src/index.js';

const SLS = `a:
  test.succeed_without_changes: &args
    - name: shared
b:
  test.succeed_without_changes: *args
c: &whole
  test.nop:
    - name: w
d: *whole
`;

t.test('an aliased argument list or declaration compiles for every ID that uses it', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'brine-alias-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  mkdirSync(join(root, 'srv'));
  writeFileSync(join(root, 'srv', 'top.sls'), "base:\n  '*':\n    - one\n");
  writeFileSync(join(root, 'srv', 'one.sls'), SLS);
  const c = compileHighstate({ tree: dirTree({ base: [join(root, 'srv')] }), minion: { id: 'm', grains: {} } });
  t.strictSame(
    c.diagnostics.filter((d) => d.severity === 'error').map((d) => d.code),
    [],
  );
  t.strictSame(
    c.low.map((l) => [l.__id__, l.state, l.fun, l.name, l.order]),
    [
      ['a', 'test', 'succeed_without_changes', 'shared', 10000],
      ['b', 'test', 'succeed_without_changes', 'shared', 10001],
      ['c', 'test', 'nop', 'w', 10002],
      ['d', 'test', 'nop', 'w', 10003],
    ],
  );
});
