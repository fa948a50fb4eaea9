import t from 'tap';
import { formatFleet, type FleetStateRow } from '../src/output/fleet.js';

t.test('a return the minion trimmed as a whole is shown from the stored state results', async (t) => {
  const row = (n: number): FleetStateRow =>
    ({
      minion: 'm1',
      run_num: n,
      tag: `test_|-s${n}_|-s${n}_|-nop`,
      id: `s${n}`,
      name: `s${n}`,
      state: 'test',
      fun: 'nop',
      sls: 'many',
      result: true,
      changed: false,
      changes: {},
      comment: 'Success!',
      start_time: null,
      duration: 1,
    }) as unknown as FleetStateRow;
  const note =
    '[9000000 bytes trimmed by the minion: over the limit of 1044480 bytes (max_event_size)]; its state results are stored one by one (brine jobs show)';
  const text = formatFleet({
    jid: '20250101000000000001',
    returns: { m1: { success: true, retcode: 0, return: { __trimmed__: note } } },
    missing: [],
    states: [row(0), row(1), row(2)],
  });
  t.match(text, /ID: s2/, 'the states are listed');
  t.match(text, /bytes trimmed by the minion/, 'with the note');
  t.match(text, /States: {2}3 {2}succeeded: 3/, 'and counted');
});
