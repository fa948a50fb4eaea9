/**
 * The positions of a text the fast path read keep the text (to parse it again when a diagnostic
 * asks), not the value first parsed from it: every ID's origin holds them for the whole compile,
 * and that value is the whole file's maps and lists, copied by each young-generation GC.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import t from 'tap';
import { collectPositions, loadYaml } from '../src/yaml-load.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const TEXT = 'web:\n  pkg.installed:\n    - name: nginx\n    - require:\n      - file: conf\nconf:\n  file.managed:\n    - source: salt://c\n';

/** The positions of TEXT, and a weak reference to the value they were collected beside. */
function positionsOnly(): { positions: ReturnType<typeof collectPositions>; value: WeakRef<object> } {
  const res = loadYaml(TEXT);
  t.ok(res.fast, 'the fast path read it');
  return { positions: collectPositions(res, 'web.sls'), value: new WeakRef(res.value as object) };
}

t.test('the positions do not keep the value parsed first', async (t) => {
  const { positions, value } = positionsOnly();
  // let go once nothing but the positions could hold it (a full GC after this turn)
  await new Promise((resolve) => setImmediate(resolve));
  gc();
  t.equal(value.deref(), undefined);
  // and still find every position, from the text
  t.same(positions.ids.web!.pos, { file: 'web.sls', line: 1, column: 1 });
  t.same(positions.ids.web!.states, { 'pkg.installed': { file: 'web.sls', line: 2, column: 3 } });
  t.same(positions.ids.conf!.args, { 'file.managed/source': { file: 'web.sls', line: 8, column: 7 } });
});
