import { readdirSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ArgSpec, StateFunction, StateModule, StateRegistry } from '@brine/core';
import { statesErrors } from './errors.js';
import { createRegistry } from './registry.js';

/**
 * Custom state modules: the Brine form of Salt's `_states/` folder. Each file of the folder is
 * one module, named after the file (or its `name` export), written in JavaScript or TypeScript
 * (type stripping: Node 22.18+ and 24). See packages/states/README.md for the contract.
 */

/** The file endings a custom module may have; TypeScript relies on Node's type stripping. */
export const CUSTOM_MODULE_EXTS = ['.js', '.mjs', '.ts', '.mts'];

export interface CustomModuleFile {
  /** Absolute path of the file to load. */
  path: string;
  /** A content hash: a changed file is imported afresh (Node caches modules by URL). */
  hash?: string;
}

/** The module name a `_states/` file provides, or undefined when the file is not a module. */
export function customModuleName(file: string): string | undefined {
  const ext = CUSTOM_MODULE_EXTS.find((e) => file.endsWith(e));
  if (!ext) return undefined;
  const base = path.basename(file, ext);
  return /^[A-Za-z_][\w]*$/.test(base) ? base : undefined;
}

/** The module files of a `_states/` folder, sorted; a missing folder has none. */
export function customModuleFiles(dir: string): CustomModuleFile[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names
    .filter((n) => customModuleName(n) !== undefined)
    .sort()
    .map((n) => ({ path: path.join(dir, n) }));
}

function fail(file: string, detail: string): never {
  throw statesErrors.make('BRINE_ERR_STATES_CUSTOM_MODULE', { file, detail });
}

const ARG_TYPES = new Set(['string', 'number', 'boolean', 'list', 'dict', 'any']);

function checkArgs(file: string, fun: string, args: unknown): Record<string, ArgSpec> {
  if (args === undefined) return {};
  if (typeof args !== 'object' || args === null || Array.isArray(args)) fail(file, `${fun}: 'args' must be an object of argument specs`);
  for (const [name, spec] of Object.entries(args as Record<string, unknown>)) {
    const types = (spec as ArgSpec | undefined)?.type;
    const list = Array.isArray(types) ? types : [types];
    if (!list.every((t) => typeof t === 'string' && ARG_TYPES.has(t))) {
      fail(file, `${fun}: argument '${name}' needs a type, one of ${[...ARG_TYPES].join(', ')}`);
    }
  }
  return args as Record<string, ArgSpec>;
}

/**
 * A state function from what the file exports: `{args, extraArgs?, run}`, or a bare async
 * function, which takes any argument (as a Salt state function with `**kwargs` does).
 */
function toFunction(file: string, fun: string, v: unknown): StateFunction {
  if (typeof v === 'function') return { args: {}, extraArgs: true, run: v as StateFunction['run'] };
  if (typeof v !== 'object' || v === null || typeof (v as StateFunction).run !== 'function') {
    fail(file, `'${fun}' must be a function or an object with a run(args, ctx) function`);
  }
  const f = v as StateFunction;
  return { args: checkArgs(file, fun, f.args), ...(f.extraArgs ? { extraArgs: true } : {}), run: f.run.bind(f) };
}

/** Checks the shape of one loaded file and returns its module. */
export function customModule(file: string, exported: Record<string, unknown>): StateModule {
  let def = (exported.default ?? exported) as Record<string, unknown>;
  // a module compiled to CommonJS (a TypeScript loader) nests its default export once more
  if (def.functions === undefined && typeof def.default === 'object' && def.default !== null) def = def.default as Record<string, unknown>;
  const name = typeof def.name === 'string' ? def.name : customModuleName(file);
  if (!name || !/^[A-Za-z_][\w]*$/.test(name)) fail(file, `the module name '${String(name)}' is not an identifier`);
  const functions = def.functions;
  if (typeof functions !== 'object' || functions === null || Object.keys(functions).length === 0) {
    fail(file, 'exports no state functions: export default { functions: { present: { args, run } } }');
  }
  const fns: Record<string, StateFunction> = {};
  for (const [fun, v] of Object.entries(functions as Record<string, unknown>)) fns[fun] = toFunction(file, fun, v);
  const available = typeof def.available === 'function' ? (def.available as StateModule['available']) : () => ({ available: true });
  const modWatch = typeof def.modWatch === 'function' ? (def.modWatch as StateModule['modWatch']) : undefined;
  return { name, functions: fns, available, ...(modWatch ? { modWatch } : {}) };
}

/** Imports each file (afresh when its hash changed) and checks it; the first bad file throws. */
export async function loadCustomModules(files: CustomModuleFile[]): Promise<StateModule[]> {
  const out: StateModule[] = [];
  for (const f of files) {
    const url = pathToFileURL(f.path).href + (f.hash ? `?v=${f.hash}` : '');
    let exported: Record<string, unknown>;
    try {
      exported = (await import(url)) as Record<string, unknown>;
    } catch (e) {
      fail(f.path, `cannot be loaded: ${(e as Error).message}`);
    }
    out.push(customModule(f.path, exported));
  }
  return out;
}

/**
 * `base` (the shipped modules: defaultRegistry, signatureRegistry or loadRegistry) plus custom
 * ones; a custom module replaces a module of the same name whole, as a Salt `_states` module
 * shadows the built-in one. Two custom files of one name throw.
 */
export function registryWith(custom: StateModule[], base: StateRegistry): StateRegistry {
  const own = createRegistry(custom);
  return {
    module: (name) => own.module(name) ?? base.module(name),
    lookup: (state, fun) => (own.module(state) ? own.lookup(state, fun) : base.lookup(state, fun)),
    list: () => [...own.list(), ...base.list().filter((f) => !own.module(f.slice(0, f.indexOf('.'))))].sort(),
  };
}
