import type { ExecFunction } from '../function.js';
import { isDict, traverse } from '../traverse.js';

const MISS = Symbol('miss');

export const configFunctions: ExecFunction[] = [
  {
    name: 'config.get',
    doc: "A value looked up (nested keys joined by ':') in the minion config, then the grains, then the pillar, then the pillar's master key; the first found.",
    params: [
      { name: 'key', type: 'string', required: true },
      { name: 'default', type: 'any', default: '' },
      { name: 'delimiter', type: 'string', default: ':' },
      { name: 'merge', type: 'any' },
      { name: 'omit_opts', type: 'boolean', default: false },
      { name: 'omit_pillar', type: 'boolean', default: false },
      { name: 'omit_master', type: 'boolean', default: false },
      { name: 'omit_grains', type: 'boolean', default: false },
    ],
    run: async (a, ctx) => {
      const pillar = await ctx.pillar();
      const sources: [boolean, unknown][] = [
        [a.omit_opts as boolean, ctx.opts],
        [a.omit_grains as boolean, ctx.grains],
        [a.omit_pillar as boolean, pillar],
        [a.omit_master as boolean, isDict(pillar.master) ? pillar.master : {}],
      ];
      for (const [omit, data] of sources) {
        if (omit) continue;
        const v = traverse(data, a.key as string, MISS, a.delimiter as string);
        if (v !== MISS) return { return: v };
      }
      return { return: a.default };
    },
  },
  {
    name: 'config.option',
    doc: "A top-level key of the minion config, the grains, the pillar or the pillar's master key; the first found.",
    params: [
      { name: 'value', type: 'string', required: true },
      { name: 'default', type: 'any', default: '' },
      { name: 'omit_opts', type: 'boolean', default: false },
      { name: 'omit_grains', type: 'boolean', default: false },
      { name: 'omit_pillar', type: 'boolean', default: false },
      { name: 'omit_master', type: 'boolean', default: false },
      { name: 'omit_all', type: 'boolean', default: false },
    ],
    run: async (a, ctx) => {
      const pillar = await ctx.pillar();
      const all = a.omit_all === true;
      const sources: [boolean, Record<string, unknown>][] = [
        [all || (a.omit_opts as boolean), ctx.opts],
        [all || (a.omit_grains as boolean), ctx.grains],
        [all || (a.omit_pillar as boolean), pillar],
        [all || (a.omit_master as boolean), isDict(pillar.master) ? pillar.master : {}],
      ];
      const key = a.value as string;
      for (const [omit, data] of sources) if (!omit && Object.hasOwn(data, key)) return { return: data[key] };
      return { return: a.default };
    },
  },
];
