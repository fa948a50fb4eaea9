/**
 * The fast path's positions of a state and its arguments are worked out when first read (only
 * diagnostics read them), from the declaration as it was parsed: the stages after the render
 * append to argument lists and drop keys, which must not move or lose a position.
 */
import t from 'tap';
import { collectPositions, loadYaml } from '../src/yaml-load.js';

const TEXT =
  'web:\n  pkg.installed:\n    - name: nginx\n    - require:\n      - file: conf\n  META:\n    doc: x\nconf:\n  file.managed:\n    - source: salt://c\n';

t.test('no argument is read until a position of the ID is asked for', async (t) => {
  const res = loadYaml(TEXT);
  t.ok(res.fast, 'the fast path read it');
  const web = (res.value as Record<string, Record<string, unknown[]>>).web!;
  let reads = 0;
  // every argument map of `web` counts the times its keys are listed or read
  const list = web['pkg.installed']!;
  const counted = list.map((arg) => {
    const pos = res.fast!.get(arg as object);
    const p = new Proxy(arg as object, {
      ownKeys: (o) => (reads++, Reflect.ownKeys(o)),
      get: (o, k) => (reads++, Reflect.get(o, k)),
    });
    if (pos) res.fast!.set(p, pos);
    return p;
  });
  list.splice(0, list.length, ...counted);
  const positions = collectPositions(res, 'web.sls');
  t.equal(reads, 0, 'collecting the positions read no argument');
  t.same(positions.ids.web!.pos, { file: 'web.sls', line: 1, column: 1 });
  t.equal(reads, 0, "the ID's own position read no argument either");
  t.same(positions.ids.web!.args['pkg.installed/require'], { file: 'web.sls', line: 4, column: 7 });
  t.ok(reads > 0, 'the arguments were read when asked for');
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
