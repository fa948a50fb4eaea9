import type { ExecFunction } from '../function.js';

const strs = (v: unknown): string[] => (v as unknown[]).map(String);

export const sysFunctions: ExecFunction[] = [
  {
    name: 'sys.list_functions',
    doc: "Names of the execution functions, filtered by globs or module names ('file' means file.*).",
    params: [],
    varArgs: true,
    run: (a, ctx) => ({ return: ctx.registry.list(...strs(a.args)) }),
  },
  {
    name: 'sys.list_modules',
    doc: 'Names of the execution modules, optionally filtered by globs.',
    params: [],
    varArgs: true,
    run: (a, ctx) => {
      const pats = strs(a.args);
      const mods = ctx.registry.modules();
      return {
        return: pats.length
          ? mods.filter(
              (m) =>
                ctx.registry.list(`${m}.*`).length &&
                pats.some((p) =>
                  new RegExp(
                    `^${p
                      .replace(/[.+^${}()|\\]/g, '\\$&')
                      .replace(/\*/g, '.*')
                      .replace(/\?/g, '.')}$`,
                  ).test(m),
                ),
            )
          : mods,
      };
    },
  },
  {
    name: 'sys.doc',
    doc: 'The documentation of the functions named (module names and globs allowed), as name -> text.',
    params: [],
    varArgs: true,
    run: (a, ctx) => ({ return: ctx.registry.doc(...strs(a.args)) }),
  },
  {
    name: 'sys.argspec',
    doc: 'The arguments of the functions named, with their defaults.',
    params: [],
    varArgs: true,
    run: (a, ctx) => {
      const out: Record<string, unknown> = {};
      for (const n of ctx.registry.list(...strs(a.args))) {
        const f = ctx.registry.lookup(n)!;
        out[n] = {
          args: f.params.map((p) => p.name),
          defaults: f.params.filter((p) => !p.required).map((p) => p.default ?? null),
          varargs: f.varArgs ? 'args' : null,
          kwargs: f.extraKwargs ? 'kwargs' : null,
        };
      }
      return { return: out };
    },
  },
];
