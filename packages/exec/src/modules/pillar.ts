import type { ExecFunction } from '../function.js';
import { isDict, traverse } from '../traverse.js';

/** A pillar compiled with errors carries them under `_errors`, as Salt's; those calls fail the job. */
function errorsOf(p: Record<string, unknown>): number {
  return Array.isArray(p._errors) && p._errors.length > 0 ? 1 : 0;
}

export const pillarFunctions: ExecFunction[] = [
  {
    name: 'pillar.items',
    doc: "This minion's pillar.",
    params: [],
    varArgs: true,
    extraKwargs: true,
    run: async (_a, ctx) => {
      const p = await ctx.pillar();
      return { return: p, retcode: errorsOf(p) };
    },
  },
  {
    name: 'pillar.raw',
    doc: 'The pillar, or the value of one top-level key (None when missing).',
    params: [{ name: 'key', type: 'string' }],
    run: async (a, ctx) => {
      const p = await ctx.pillar();
      return { return: a.key === undefined ? p : (p[a.key as string] ?? null) };
    },
  },
  {
    name: 'pillar.get',
    doc: "One pillar value, nested keys joined by ':', or the default.",
    params: [
      { name: 'key', type: 'string', required: true },
      { name: 'default', type: 'any', default: '' },
      { name: 'merge', type: 'any' },
      { name: 'merge_nested_lists', type: 'any' },
      { name: 'delimiter', type: 'string', default: ':' },
      { name: 'pillarenv', type: 'string' },
      { name: 'saltenv', type: 'string' },
    ],
    run: async (a, ctx) => ({ return: traverse(await ctx.pillar(), a.key as string, a.default, a.delimiter as string) }),
  },
  {
    name: 'pillar.item',
    doc: 'The named pillar keys as a dict (nested keys joined by :); a missing one maps to the default.',
    params: [],
    varArgs: true,
    extraKwargs: true,
    run: async (a, ctx) => {
      const p = await ctx.pillar();
      const kw = a.kwargs as Record<string, unknown>;
      const dflt = 'default' in kw ? kw.default : '';
      const delim = typeof kw.delimiter === 'string' ? kw.delimiter : ':';
      const out: Record<string, unknown> = {};
      for (const k of a.args as unknown[]) out[String(k)] = traverse(p, String(k), dflt, delim);
      return { return: out };
    },
  },
  {
    name: 'pillar.keys',
    doc: 'The keys of the dict at key (nested keys joined by :).',
    params: [
      { name: 'key', type: 'string', required: true },
      { name: 'delimiter', type: 'string', default: ':' },
    ],
    run: async (a, ctx) => {
      const v = traverse(await ctx.pillar(), a.key as string, undefined, a.delimiter as string);
      if (!isDict(v)) throw new Error(`Pillar key '${String(a.key)}' is not a dictionary`);
      return { return: Object.keys(v) };
    },
  },
  { name: 'pillar.ls', doc: 'The top-level pillar keys.', params: [], run: async (_a, ctx) => ({ return: Object.keys(await ctx.pillar()) }) },
];
