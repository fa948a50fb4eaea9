import { argBindEntryValue, findArgBindRefs, REQUISITE_KEYS, type Diagnostic, type HighData, type StageResult } from '@brine/core';
import { compilerErrors } from './errors.js';
import { locate, type IdOrigin } from './gather.js';
import { argKey, isDict } from './high-util.js';

/**
 * The arg_bind stage (Idem's argument binding), on refined high data: every
 * `${<state>:<id>[<name>]:<prop>...}` in an argument value becomes an `arg_bind` requisite of
 * that state, so the referenced state runs first; the runtime later reads the value from the
 * referenced state's `new_state`.
 *
 * The entry shape (visible in show_lowstate): `arg_bind` is a requisite list like `require`,
 * one entry per referenced state, in the order the references first appear:
 *
 *     - arg_bind:
 *       - test: State_B              # ${test:State_B:ID}
 *       - file: site[/srv/www]       # ${file:site[/srv/www]:path}
 *
 * (Idem nests the property and argument under the entry; Brine keeps requisite-shaped entries so
 * every requisite tool reads them alike, and the references themselves stay in the argument
 * values, where the runtime substitutes them.) Existing `arg_bind` entries are kept.
 *
 * Diagnostics (BRINE_ERR_COMPILE_ARG_BIND): a reference to an ID that does not exist, to an ID
 * without a declaration of that state module, to a resource name the ID does not declare, to an
 * ID with several `names` without saying which, to the state itself, and `${...}` text that has
 * a reference's shape but does not parse. Requisite lists and `names` are not searched.
 */

type Decl = Record<string, unknown>;

/** The resource names an ID's declaration of a state module has: its name(s), else the ID. */
function resourceNames(id: string, list: unknown[]): string[] {
  const names: string[] = [];
  let name: string | undefined;
  for (const arg of list) {
    const key = argKey(arg);
    if (key === 'name') name = String((arg as Decl).name);
    if (key === 'names' && Array.isArray((arg as Decl).names)) {
      for (const n of (arg as Decl).names as unknown[]) {
        const nk = argKey(n);
        names.push(typeof n === 'string' ? n : (nk ?? String(n)));
      }
    }
  }
  if (names.length > 0) return names;
  return [name ?? id];
}

/** Whether a value has `${` in a string anywhere (findArgBindRefs' answers are objects: most values have none). */
function mentionsRef(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('${');
  if (Array.isArray(value)) return value.some(mentionsRef);
  if (value !== null && typeof value === 'object') {
    for (const k in value) if (Object.hasOwn(value, k) && mentionsRef((value as Decl)[k])) return true;
  }
  return false;
}

/** An argument that may hold a reference: not a requisite or `names`, with `${` in a string of its value. */
function mayBind(arg: unknown): boolean {
  const key = argKey(arg);
  return key !== undefined && !REQUISITE_KEYS.has(key) && key !== 'names' && mentionsRef((arg as Decl)[key]);
}

/**
 * The `arg_bind` entries one state's list gains from the references in its arguments: the new
 * list, or undefined when it binds nothing. A function of its own: the loop over every state of a
 * tree holds no closure, so its variables need no context per state.
 */
function bindList(
  high: HighData,
  id: string,
  decl: Decl,
  state: string,
  list: unknown[],
  diagnostics: Diagnostic[],
  origins?: Record<string, IdOrigin>,
): unknown[] | undefined {
  let entries: Array<Record<string, string>> | undefined;
  let seen: Set<string> | undefined;
  let existing = -1;
  list.forEach((arg, i) => {
    const key = argKey(arg);
    if (key === undefined) return;
    if (key === 'arg_bind') existing = i;
    if (REQUISITE_KEYS.has(key) || key === 'names') return;
    const { uses, errors } = findArgBindRefs(key, (arg as Decl)[key]);
    if (uses.length === 0 && errors.length === 0) return;
    const at = locate(origins, id, `${state}/${key}`);
    const where = { ...at, sls: at.sls ?? (decl.__sls__ as string | undefined), env: at.env ?? (decl.__env__ as string | undefined) };
    const report = (detail: string) => diagnostics.push(compilerErrors.diag('BRINE_ERR_COMPILE_ARG_BIND', { id, detail }, where));
    for (const e of errors) report(`argument '${e.where}' of state '${state}': ${e.text} is not a valid reference (${e.reason})`);
    for (const { ref, where: at } of uses) {
      const prefix = `argument '${at}' of state '${state}' references ${ref.text}, but`;
      const target = high[ref.id];
      if (!isDict(target)) {
        report(`${prefix} there is no ID '${ref.id}' in this run`);
        continue;
      }
      const targetList = target[ref.state];
      if (!Array.isArray(targetList)) {
        report(`${prefix} ID '${ref.id}' has no '${ref.state}' state`);
        continue;
      }
      if (ref.id === id && ref.state === state) {
        report(`${prefix} a state cannot bind to its own result`);
        continue;
      }
      const names = resourceNames(ref.id, targetList);
      if (ref.resource !== undefined && !names.includes(ref.resource)) {
        report(`${prefix} ID '${ref.id}' declares no resource named '${ref.resource}' (it has: ${names.join(', ')})`);
        continue;
      }
      if (ref.resource === undefined && names.length > 1) {
        report(`${prefix} ID '${ref.id}' has several names; say which, like \${${ref.state}:${ref.id}[${names[0]}]:...}`);
        continue;
      }
      const value = argBindEntryValue(ref);
      const k = `${ref.state}\0${value}`;
      if ((seen ??= new Set()).has(k)) continue;
      seen.add(k);
      (entries ??= []).push({ [ref.state]: value });
    }
  });
  if (entries === undefined) return undefined;
  const newList = [...list];
  if (existing >= 0) {
    const prev = (newList[existing] as Decl).arg_bind;
    const kept = Array.isArray(prev) ? [...prev] : [];
    const have = new Set(kept.map((e) => JSON.stringify(e)));
    for (const e of entries) if (!have.has(JSON.stringify(e))) kept.push(e);
    newList[existing] = { arg_bind: kept };
  } else {
    newList.push({ arg_bind: entries });
  }
  return newList;
}

export function argBind(high: HighData, origins?: Record<string, IdOrigin>, idList: readonly string[] = Object.keys(high)): StageResult<HighData> {
  const diagnostics: Diagnostic[] = [];
  // copied when a declaration changes: most trees bind nothing, and the copy of 10,000 IDs is not free
  let out: HighData | undefined;

  for (let k = 0; k < idList.length; k++) {
    const id = idList[k]!;
    if (id.startsWith('__')) continue;
    const decl = high[id];
    if (!isDict(decl)) continue;
    let newDecl: Decl | undefined;
    for (const state in decl) {
      const list = decl[state];
      // the lists that bind are looked at closely; the others (nearly all) make nothing
      if (state.startsWith('__') || !Array.isArray(list) || !list.some(mayBind)) continue;
      const newList = bindList(high, id, decl, state, list, diagnostics, origins);
      if (newList === undefined) continue;
      newDecl ??= { ...decl };
      newDecl[state] = newList;
    }
    if (newDecl) (out ??= { ...high })[id] = newDecl;
  }
  return { value: out ?? high, diagnostics };
}
