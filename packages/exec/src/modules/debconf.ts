import type { ExecFunction } from '../function.js';
import { debconfSelections, debconfSet, debconfShow } from '../host/debconf.js';

/** Salt's debconf execution module. */
export const debconfFunctions: ExecFunction[] = [
  {
    name: 'debconf.get_selections',
    doc: 'Every answer in the debconf database: {package: [[question, type, value], ...]}.',
    params: [{ name: 'fetchempty', type: 'boolean', default: true }],
    run: async (a, ctx) => ({ return: await debconfSelections(ctx.cmd, a.fetchempty !== false) }),
  },
  {
    name: 'debconf.show',
    doc: "One package's answers, or None.",
    params: [{ name: 'name', type: 'string', required: true }],
    run: async (a, ctx) => ({ return: await debconfShow(ctx.cmd, String(a.name)) }),
  },
  {
    name: 'debconf.set',
    doc: 'Sets one answer: package, question, type, value.',
    params: [
      { name: 'package', type: 'string', required: true },
      { name: 'question', type: 'string', required: true },
      { name: 'type', type: 'string', required: true },
      { name: 'value', type: 'any', required: true },
    ],
    varArgs: true,
    run: async (a, ctx) => {
      const extra = Array.isArray(a.args) ? a.args.map(String) : [];
      return { return: await debconfSet(ctx.cmd, String(a.package), String(a.question), String(a.type), [String(a.value), ...extra].join(' ')) };
    },
  },
];
