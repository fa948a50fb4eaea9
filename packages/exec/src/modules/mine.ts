import type { ExecFunction } from '../function.js';

/**
 * Salt's mine: Brine keeps no mine (minions do not publish function results to the master), so
 * mine.get finds no data, the answer salt-call --local gives too. A formula that lists other
 * minions' addresses through the mine renders its "no peers" branch, as masterless Salt does.
 */
export const mineFunctions: ExecFunction[] = [
  {
    name: 'mine.get',
    doc: "Other minions' mine data for a function: always {} (Brine keeps no mine, as masterless Salt has none).",
    params: [
      { name: 'tgt', type: ['string', 'list'], required: true },
      { name: 'fun', type: ['string', 'list'], required: true },
      { name: 'tgt_type', type: 'string', default: 'glob' },
      { name: 'exclude_minion', type: 'boolean', default: false },
    ],
    run: () => ({ return: {} }),
  },
];
