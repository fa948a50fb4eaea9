import type { Diagnostic, ExcludeEntry, HighData } from '@brine/core';
import { compilerErrors } from './errors.js';
import { describe } from './top.js';
import type { PositionMap } from './render/types.js';

/**
 * What happens to one rendered SLS file before it joins the high data (Salt does this at render
 * time): `extend` and `exclude` are stashed in `__extend__` / `__exclude__`, short decs
 * (`pkg.installed: [...]`, `id: pkg.installed`) become the standard form with the function at the
 * end of the list, and `__sls__` / `__env__` are injected.
 */
export function standardizeFile(state: Record<string, unknown>, sls: string, env: string, positions: PositionMap | undefined, diagnostics: Diagnostic[]): void {
  const where = (id?: string) => {
    const p = id !== undefined ? positions?.ids[id]?.pos : undefined;
    return { file: positions?.file, line: p?.line, column: p?.column, sls, env, id };
  };

  stashExtend(state, sls, env, where, diagnostics);
  stashExclude(state, sls, where, diagnostics);
  const idList = Object.keys(state);
  for (let k = 0; k < idList.length; k++) {
    const id = idList[k]!;
    if (id.startsWith('__')) continue;
    const body = state[id];
    if (typeof body === 'string' && body.includes('.')) {
      // `httpd: pkg.installed` is the shortest form of all.
      const dot = body.indexOf('.');
      state[id] = { [body.slice(0, dot)]: [body.slice(dot + 1)], __sls__: sls, __env__: env };
      continue;
    }
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      diagnostics.push(compilerErrors.diag('BRINE_ERR_COMPILE_ID_NOT_DICT', { id, sls, got: describe(body) }, where(id)));
      delete state[id];
      continue;
    }
    state[id] = standardDecl(body as Record<string, unknown>, id, sls, env, positions, where, diagnostics);
  }
}

type Where = (id?: string) => {
  file: string | undefined;
  line: number | undefined;
  column: number | undefined;
  sls: string;
  env: string;
  id: string | undefined;
};

/** `extend:` stashed in `__extend__`, its short decs made standard. */
function stashExtend(state: Record<string, unknown>, sls: string, env: string, where: Where, diagnostics: Diagnostic[]): void {
  if (!('extend' in state)) return;
  const ext = state.extend;
  delete state.extend;
  if (ext === null || typeof ext !== 'object' || Array.isArray(ext)) {
    diagnostics.push(compilerErrors.diag('BRINE_ERR_COMPILE_BAD_EXTEND', { sls, got: describe(ext) }, where('extend')));
  } else {
    const clean: Record<string, Record<string, unknown>> = {};
    for (const [id, body] of Object.entries(ext as Record<string, unknown>)) {
      if (body === null || typeof body !== 'object' || Array.isArray(body)) {
        diagnostics.push(compilerErrors.diag('BRINE_ERR_COMPILE_ID_NOT_DICT', { id, sls, got: describe(body) }, where('extend')));
        continue;
      }
      const decl: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(body as Record<string, unknown>)) {
        const dot = key.indexOf('.');
        if (!key.startsWith('_') && dot > 0 && (Array.isArray(value) || value === null)) {
          decl[key.slice(0, dot)] = [...((value as unknown[] | null) ?? []), key.slice(dot + 1)];
        } else {
          decl[key] = value;
        }
      }
      decl.__sls__ ??= sls;
      decl.__env__ ??= env;
      clean[id] = decl;
    }
    ((state as HighData).__extend__ ??= []).push(clean);
  }
}

/** `exclude:` stashed in `__exclude__`, the malformed entries reported and left out. */
function stashExclude(state: Record<string, unknown>, sls: string, where: Where, diagnostics: Diagnostic[]): void {
  if (!('exclude' in state)) return;
  const exc = state.exclude;
  delete state.exclude;
  const list = typeof exc === 'string' ? [exc] : exc;
  if (!Array.isArray(list)) {
    diagnostics.push(compilerErrors.diag('BRINE_ERR_COMPILE_BAD_EXCLUDE', { sls, got: describe(exc) }, where('exclude')));
  } else {
    const good = list.filter((e) => {
      const ok =
        typeof e === 'string' ||
        (e &&
          typeof e === 'object' &&
          !Array.isArray(e) &&
          Object.keys(e).length === 1 &&
          ('id' in e || 'sls' in e) &&
          typeof Object.values(e)[0] === 'string');
      if (!ok) {
        diagnostics.push(compilerErrors.diag('BRINE_ERR_COMPILE_BAD_EXCLUDE', { sls, got: JSON.stringify(e) }, where('exclude')));
      }
      return ok;
    });
    ((state as HighData).__exclude__ ??= []).push(...good.map((e) => (typeof e === 'string' ? { sls: e } : e) as ExcludeEntry));
  }
}

/** One ID's declaration in the standard form: short decs moved to the end, `__sls__` / `__env__` set. */
function standardDecl(
  decl: Record<string, unknown>,
  id: string,
  sls: string,
  env: string,
  positions: PositionMap | undefined,
  where: Where,
  diagnostics: Diagnostic[],
): Record<string, unknown> {
  // A new object instead of deleting keys: deleted properties turn V8 objects into slow
  // dictionaries, and every later stage reads these declarations.
  const out: Record<string, unknown> = {};
  // lists made at their first entry, as literals (no Set per ID, and a first push makes room for 17)
  let moved: Array<[string, unknown[]]> | undefined;
  let seenModules: string[] | undefined;
  const keyList = Object.keys(decl);
  for (let k = 0; k < keyList.length; k++) {
    const key = keyList[k]!;
    let value = decl[key];
    if (key.startsWith('_')) {
      out[key] = value;
      continue;
    }
    // `pkg.installed:` with nothing after the colon means no arguments.
    if (value === null) value = [];
    if (!Array.isArray(value)) {
      out[key] = value;
      continue;
    }
    const dot = key.indexOf('.');
    if (dot <= 0) {
      if (seenModules) seenModules.push(key);
      else seenModules = [key];
      out[key] = value;
      continue;
    }
    const mod = key.slice(0, dot);
    if (seenModules?.includes(mod) || (mod in decl && mod !== key)) {
      const p = positions?.ids[id]?.states[key];
      diagnostics.push(
        compilerErrors.diag(
          'BRINE_ERR_COMPILE_MULTIPLE_FUNCTIONS',
          { id, state: mod, functions: `${key} and another ${mod} declaration` },
          { ...where(id), ...(p ? { line: p.line, column: p.column } : {}) },
        ),
      );
      out[key] = value;
      continue;
    }
    // Salt moves a short dec to the end of the ID, with the function last in its list.
    const run = appended(value, key.slice(dot + 1));
    if (moved) moved.push([mod, run]);
    else moved = [[mod, run]];
    if (seenModules) seenModules.push(mod);
    else seenModules = [mod];
  }
  // an index loop: no iterator result nor destructured pair per ID before the optimiser has this code
  if (moved) for (let m = 0; m < moved.length; m++) out[moved[m]![0]] = moved[m]![1];
  if (!('__sls__' in out)) out.__sls__ = sls;
  if (!('__env__' in out)) out.__env__ = env;
  return out;
}

/**
 * Auto order: every state declaration without an `order` gets the next number, in load order.
 * The counter lives across files (it is the caller's), so included files get the low numbers.
 */
export function injectAutoOrder(state: HighData, counter: { next: number }, keyOrder?: string[]): void {
  const keys = keyOrder ? [...new Set([...keyOrder.filter((k) => k in state), ...Object.keys(state)])] : Object.keys(state);
  for (let k = 0; k < keys.length; k++) {
    const id = keys[k]!;
    if (id.startsWith('__')) continue;
    const decl = state[id];
    if (decl === null || typeof decl !== 'object' || Array.isArray(decl)) continue;
    // for-in and index loops: this runs for every state of a tree, and temporary arrays add up
    for (const key in decl) {
      const args = (decl as Record<string, unknown>)[key];
      if (key.startsWith('_') || !Array.isArray(args)) continue;
      if (!hasOrder(args)) (decl as Record<string, unknown>)[key] = appended(args, { order: counter.next++ });
    }
  }
}

/**
 * `list` and `item` after it, in a new list of that length: a push makes room for 16 more, and
 * each ID's list is kept as long as the compile (copied by each young-generation GC it lives
 * through). The list as parsed is left as it was.
 */
function appended(list: unknown[], item: unknown): unknown[] {
  switch (list.length) {
    case 0:
      return [item];
    case 1:
      return [list[0], item];
    case 2:
      return [list[0], list[1], item];
    case 3:
      return [list[0], list[1], list[2], item];
    default:
      return list.concat([item]);
  }
}

/** Whether an argument list has a dict whose first key is `order`. */
function hasOrder(args: unknown[]): boolean {
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === null || typeof a !== 'object' || Array.isArray(a)) continue;
    for (const k in a) {
      if (k === 'order') return true;
      break;
    }
  }
  return false;
}
