import t from 'tap';
import { compileHighstate, dirTree } from '../src/index.js';
import { conformanceCases } from './support/conformance.js';
import { renderSls } from '../src/render/index.js';

/**
 * Salt 3007's own `state.show_lowstate` output for each public conformance case: Brine must
 * produce the same chunks, in the same order, with the same keys in the same order.
 */
for (const c of conformanceCases()) {
  t.test(c.name, async (t) => {
    const compiled = compileHighstate({
      tree: dirTree({ base: [c.tree] }),
      minion: { id: 'anchor', grains: { id: 'anchor' } },
      render: renderSls,
    });
    if (Array.isArray(c.low) && c.low.every((x) => typeof x === 'object')) {
      t.same(
        compiled.diagnostics.filter((d) => d.severity === 'error'),
        [],
        'no errors',
      );
      t.same(compiled.low, c.low, 'same low state as Salt');
      t.same(
        compiled.low.map((x) => Object.keys(x)),
        (c.low as object[]).map((x) => Object.keys(x)),
        'same key order as Salt',
      );
    } else {
      // Salt answers with a list of error strings; Brine fails with coded diagnostics instead.
      t.ok(compiled.failed, 'compile fails');
      t.ok(compiled.diagnostics.length > 0);
      t.comment(compiled.diagnostics.map((d) => `${d.code}: ${d.message}`).join('\n'));
    }
  });
}
