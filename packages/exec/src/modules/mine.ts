import type { ExecFunction } from '../function.js';

/**
 * Salt's mine without a master (`brine local`, like salt-call --local with no mine cache):
 * mine.get finds no data, so a formula that lists other minions' addresses renders its "no
 * peers" branch. A minion with a master replaces these with its own mine.* (packages/minion),
 * and the master answers templates' mine.get from its store.
 */
export const mineFunctions: ExecFunction[] = [
  {
    name: 'mine.get',
    doc: "Other minions' mine data for a function: {} here (masterless, no mine); a minion asks its master.",
    params: [
      { name: 'tgt', type: ['string', 'list'], required: true },
      { name: 'fun', type: ['string', 'list'], required: true },
      { name: 'tgt_type', type: 'string', default: 'glob' },
      { name: 'exclude_minion', type: 'boolean', default: false },
    ],
    run: () => ({ return: {} }),
  },
];
