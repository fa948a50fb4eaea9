import { isDict } from '@brine/core';
import type { MinionFunction } from './exec-function.js';
import type { MinePusher } from './mine.js';

/**
 * Salt's mine.* on a minion with a master: pushes go to the master for this minion only, and
 * mine.get asks the master, which answers from its store (`brine local` keeps @brine/exec's
 * mine.get: masterless, no mine). Return values as Salt's: True once stored, None for an update
 * with nothing configured, False for a send whose function failed.
 */
export function mineFunctions(mine: () => MinePusher, request: (op: string, args: Record<string, unknown>) => Promise<unknown>): MinionFunction[] {
  return [
    {
      name: 'mine.update',
      doc: 'Runs mine_functions (or those given) and pushes their values to the master; clear=True replaces every value this minion pushed before.',
      params: [
        { name: 'clear', type: 'boolean', default: false },
        { name: 'mine_functions', type: ['dict', 'list'] },
      ],
      run: async (a) => {
        const given = a.mine_functions;
        const defs = Array.isArray(given) ? Object.fromEntries(given.map((f) => [String(f), {}])) : isDict(given) ? given : undefined;
        return { return: (await mine().update(a.clear === true, defs)) ? true : null };
      },
    },
    {
      name: 'mine.send',
      doc: 'Runs one function and pushes its value under `name` (mine_function=... makes name an alias); other arguments go to the function.',
      params: [{ name: 'name', type: 'string', required: true }],
      varArgs: true,
      extraKwargs: true,
      run: async (a) => ({ return: await mine().send(a.name as string, a.args as unknown[], a.kwargs as Record<string, unknown>) }),
    },
    {
      name: 'mine.delete',
      doc: "Removes one function's value this minion pushed.",
      params: [{ name: 'fun', type: 'string', required: true }],
      run: async (a) => {
        await mine().delete(a.fun as string);
        return { return: true };
      },
    },
    {
      name: 'mine.flush',
      doc: 'Removes every value this minion pushed.',
      params: [],
      run: async () => {
        await mine().flush();
        return { return: true };
      },
    },
    {
      name: 'mine.get',
      doc: "Other minions' mine values for a function: {minion: value} for the minions the target matches (several functions: {fun: {minion: value}}), from the master's store.",
      params: [
        { name: 'tgt', type: ['string', 'list'], required: true },
        { name: 'fun', type: ['string', 'list'], required: true },
        { name: 'tgt_type', type: 'string', default: 'glob' },
        { name: 'exclude_minion', type: 'boolean', default: false },
      ],
      run: async (a) => ({ return: await request('mine.get', { tgt: a.tgt, fun: a.fun, tgt_type: a.tgt_type, exclude_minion: a.exclude_minion }) }),
    },
  ];
}
