/**
 * The fast path keeps the positions of a text's top-level keys (its IDs); those of states and
 * arguments are worked out when first read (only diagnostics read them), from the text as it was
 * parsed: the stages after the render append to argument lists and drop keys, which must not move
 * or lose a position.
 */
import t from 'tap';
import { collectPositions, loadYaml } from '../src/yaml-load.js';

const TEXT =
  'web:\n  pkg.installed:\n    - name: nginx\n    - require:\n      - file: conf\n  META:\n    doc: x\nconf:\n  file.managed:\n    - source: salt://c\n';

t.test("the loader keeps the IDs' positions only; the others are found when asked for", async (t) => {
  const res = loadYaml(TEXT);
  t.ok(res.fast, 'the fast path read it');
  t.equal(res.fast!.size, 1, 'one map has its key positions kept: the top level (the IDs)');
  const positions = collectPositions(res, 'web.sls');
  t.same(positions.ids.web!.pos, { file: 'web.sls', line: 1, column: 1 });
  t.same(positions.ids.conf!.pos, { file: 'web.sls', line: 8, column: 1 });
  t.same(positions.ids.web!.states, { 'pkg.installed': { file: 'web.sls', line: 2, column: 3 }, META: { file: 'web.sls', line: 6, column: 3 } });
  t.same(positions.ids.web!.args, {
    'pkg.installed/name': { file: 'web.sls', line: 3, column: 7 },
    'pkg.installed/require': { file: 'web.sls', line: 4, column: 7 },
  });
  t.same(positions.ids.conf!.args, { 'file.managed/source': { file: 'web.sls', line: 10, column: 7 } });
  // what the full parser gives for the same text
  const full = collectPositions(loadYaml(TEXT, { fast: false }), 'web.sls');
  for (const id of ['web', 'conf'])
    t.same({ states: positions.ids[id]!.states, args: positions.ids[id]!.args }, { states: full.ids[id]!.states, args: full.ids[id]!.args }, id);
});

t.test('positions asked for after later stages changed the data are those parsed', async (t) => {
  const res = loadYaml(TEXT);
  const eager = collectPositions(loadYaml(TEXT), 'web.sls');
  const expected = { states: eager.ids.web!.states, args: eager.ids.web!.args };
  const positions = collectPositions(res, 'web.sls');
  const value = res.value as Record<string, Record<string, unknown>>;
  const web = value.web!;
  const conf = value.conf!;
  // what gather and reconcile do: META taken out, the function name and order appended, an
  // extend's argument (with positions of its own file) merged into the list
  delete web.META;
  (web['pkg.installed'] as unknown[]).push('installed', { order: 10000 }, (conf['file.managed'] as unknown[])[0]);
  t.same({ states: positions.ids.web!.states, args: positions.ids.web!.args }, expected);
  t.ok('META' in positions.ids.web!.states, 'a key taken out later keeps its position');
  t.notOk('pkg.installed/source' in positions.ids.web!.args, 'an argument appended later has none');
});
