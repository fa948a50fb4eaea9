import type { ExecFunction } from '../function.js';

/** Python's type names, as test.arg_type prints them. */
function pyType(v: unknown): string {
  if (v === null || v === undefined) return "<class 'NoneType'>";
  if (typeof v === 'boolean') return "<class 'bool'>";
  if (typeof v === 'number') return Number.isInteger(v) ? "<class 'int'>" : "<class 'float'>";
  if (typeof v === 'string') return "<class 'str'>";
  if (Array.isArray(v)) return "<class 'list'>";
  return "<class 'dict'>";
}

/** Salt's test module: the cheap functions operators and formulas use. */
export const testFunctions: ExecFunction[] = [
  { name: 'test.ping', doc: 'Answers True: the minion is up and answering (not an ICMP ping).', params: [], pure: true, run: () => ({ return: true }) },
  { name: 'test.true', doc: 'Always returns True.', params: [], pure: true, run: () => ({ return: true }) },
  { name: 'test.false', doc: 'Always returns False.', params: [], pure: true, run: () => ({ return: false }) },
  {
    name: 'test.echo',
    doc: 'Returns the text it was given.',
    params: [{ name: 'text', type: 'any', required: true }],
    pure: true,
    run: (a) => ({ return: a.text }),
  },
  { name: 'test.version', doc: 'The version of this minion.', params: [], run: (_a, ctx) => ({ return: ctx.version }) },
  {
    name: 'test.sleep',
    doc: 'Sleeps for length seconds, then returns True.',
    params: [{ name: 'length', type: ['number', 'string'], required: true }],
    run: async (a, ctx) => {
      const ms = Math.trunc(Number(a.length)) * 1000;
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, ms);
        ctx.signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
      });
      return { return: true };
    },
  },
  {
    name: 'test.arg',
    doc: 'Returns the positional and keyword arguments it was given: {args, kwargs}.',
    params: [],
    varArgs: true,
    extraKwargs: true,
    run: (a) => ({ return: { args: a.args, kwargs: a.kwargs } }),
  },
  {
    name: 'test.arg_clean',
    doc: 'Like test.arg, without the __pub* keyword arguments.',
    params: [],
    varArgs: true,
    extraKwargs: true,
    run: (a) => ({ return: { args: a.args, kwargs: a.kwargs } }),
  },
  {
    name: 'test.arg_type',
    doc: 'The Python type names of the arguments given.',
    params: [],
    varArgs: true,
    extraKwargs: true,
    run: (a) => ({
      return: {
        args: (a.args as unknown[]).map(pyType),
        kwargs: Object.fromEntries(Object.entries(a.kwargs as Record<string, unknown>).map(([k, v]) => [k, pyType(v)])),
      },
    }),
  },
  {
    name: 'test.kwarg',
    doc: 'Returns the keyword arguments it was given.',
    params: [],
    extraKwargs: true,
    run: (a) => ({ return: a.kwargs }),
  },
  {
    name: 'test.outputter',
    doc: 'Returns the data given, to test outputters.',
    params: [{ name: 'data', type: 'any', required: true }],
    run: (a) => ({ return: a.data }),
  },
  {
    name: 'test.retcode',
    doc: 'Returns True with the job retcode set to code (default 42).',
    params: [{ name: 'code', type: 'number', default: 42 }],
    run: (a) => ({ return: true, retcode: a.code as number }),
  },
  {
    name: 'test.fib',
    doc: 'The num-th Fibonacci number and the seconds it took: [number, seconds].',
    params: [{ name: 'num', type: 'number', required: true }],
    run: (a) => {
      const start = performance.now();
      let [x, y] = [0, 1];
      for (let i = 0; i < (a.num as number); i++) [x, y] = [y, x + y];
      return { return: [x, (performance.now() - start) / 1000] };
    },
  },
  { name: 'test.get_opts', doc: "The minion's configuration (__opts__).", params: [], run: (_a, ctx) => ({ return: ctx.opts }) },
];
