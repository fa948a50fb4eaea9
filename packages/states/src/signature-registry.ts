import type { ArgSpec, StateFunction, StateModule, StateRegistry } from '@brine/core';
import { statesErrors } from './errors.js';
import { STATE_SIGNATURES, type StateSignatures } from './signatures.js';

/** The signatures of a registry's functions (scripts/state-signatures.mjs writes the shipped ones to signatures.ts). */
export function signaturesOf(registry: StateRegistry): StateSignatures {
  const out: StateSignatures = {};
  for (const full of registry.list()) {
    const dot = full.indexOf('.');
    const [state, fun] = [full.slice(0, dot), full.slice(dot + 1)];
    const fn = registry.lookup(state, fun)!.fn;
    const args: StateSignatures[string][string]['args'] = {};
    for (const [key, spec] of Object.entries(fn.args)) args[key] = spec.type;
    (out[state] ??= {})[fun] = { args, ...(fn.extraArgs ? { extraArgs: true } : {}), ...(fn.strictArgs ? { strictArgs: true } : {}) };
  }
  return out;
}

function signatureModule(name: string, functions: StateSignatures[string]): StateModule {
  const run = (): never => {
    throw statesErrors.make('BRINE_ERR_STATES_NOT_LOADED', { name });
  };
  const fns: Record<string, StateFunction> = {};
  for (const [fun, sig] of Object.entries(functions)) {
    const args: Record<string, ArgSpec> = {};
    for (const [key, type] of Object.entries(sig.args)) args[key] = { type };
    fns[fun] = { args, ...(sig.extraArgs ? { extraArgs: true } : {}), ...(sig.strictArgs ? { strictArgs: true } : {}), run };
  }
  return { name, functions: fns, available: () => ({ available: true }) };
}

/**
 * The shipped modules' names, functions and arguments without their code: what a compile checks
 * states against (unknown modules, functions and arguments). Its functions cannot run: a state
 * run takes loadRegistry's modules.
 */
export function signatureRegistry(signatures: StateSignatures = STATE_SIGNATURES): StateRegistry {
  const modules = new Map<string, StateModule>();
  // asked once per state and argument of a compile: the made module first
  const moduleOf = (name: string): StateModule | undefined => {
    let m = modules.get(name);
    if (!m && Object.hasOwn(signatures, name)) modules.set(name, (m = signatureModule(name, signatures[name]!)));
    return m;
  };
  return {
    module: moduleOf,
    lookup(state, fun) {
      const module = moduleOf(state);
      return module && Object.hasOwn(module.functions, fun) ? { module, fn: module.functions[fun]! } : undefined;
    },
    list() {
      const out: string[] = [];
      for (const [m, fns] of Object.entries(signatures)) for (const f of Object.keys(fns)) out.push(`${m}.${f}`);
      return out.sort();
    },
  };
}
