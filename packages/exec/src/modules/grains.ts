import type { ExecFunction } from '../function.js';
import { traverse } from '../traverse.js';

export const grainsFunctions: ExecFunction[] = [
  { name: 'grains.items', doc: 'All grains of this minion.', params: [{ name: 'sanitize', type: 'any' }], run: (_a, ctx) => ({ return: ctx.grains }) },
  {
    name: 'grains.get',
    doc: "One grain, nested keys joined by ':' (e.g. 'ip_interfaces:eth0'), or the default.",
    params: [
      { name: 'key', type: 'string', required: true },
      { name: 'default', type: 'any', default: '' },
      { name: 'delimiter', type: 'string', default: ':' },
      { name: 'ordered', type: 'any' },
    ],
    run: (a, ctx) => ({ return: traverse(ctx.grains, a.key as string, a.default, a.delimiter as string) }),
  },
  {
    name: 'grains.item',
    doc: 'The named grains as a dict (grains.item os os_family); a missing one maps to an empty string.',
    params: [],
    varArgs: true,
    extraKwargs: true,
    run: (a, ctx) => {
      const out: Record<string, unknown> = {};
      for (const k of a.args as unknown[]) out[String(k)] = traverse(ctx.grains, String(k), '');
      return { return: out };
    },
  },
  { name: 'grains.ls', doc: 'The names of the grains, sorted.', params: [], run: (_a, ctx) => ({ return: Object.keys(ctx.grains).sort() }) },
  {
    name: 'grains.has_value',
    doc: 'True if the grain (nested keys joined by :) is set to a truthy value.',
    params: [{ name: 'key', type: 'string', required: true }],
    run: (a, ctx) => {
      const v = traverse(ctx.grains, a.key as string, undefined);
      const truthy = !(
        v === undefined ||
        v === null ||
        v === false ||
        v === 0 ||
        v === '' ||
        (Array.isArray(v) && v.length === 0) ||
        (typeof v === 'object' && v !== null && Object.keys(v).length === 0)
      );
      return { return: truthy };
    },
  },
];
