import { matchTarget } from '@brine/compiler';
import { masterErrors } from '../errors.js';

/** The special forms of Salt's external_auth: orchestrations (runners), key management (wheel), job history. */
export type Special = '@runner' | '@wheel' | '@jobs';
const SPECIALS: readonly string[] = ['@runner', '@wheel', '@jobs'];

/** One line of a user's permissions: function regexes on a target (null: every minion), or a special form. */
export type Grant = { target: string | null; funs: string[] } | { special: Special; funs: string[] | null };

/** Who made a call: the bootstrap token's holder is the first admin; everyone else has grants. */
export interface Identity {
  user: string;
  eauth: 'bootstrap' | 'local' | 'ldap';
  groups: string[];
  admin: boolean;
  grants: Grant[];
  /** The API token's id, when the call came with a user's token. */
  tokenId?: string;
}

export type ExternalAuth = Record<string, Record<string, unknown[]>>;

function bad(where: string, detail: string): Error {
  return masterErrors.make('BRINE_ERR_MASTER_EAUTH_CONFIG', { where, detail });
}

function regexList(v: unknown, where: string): string[] {
  const list = Array.isArray(v) ? v : [v];
  return list.map((x) => {
    if (typeof x === 'string') return x;
    // Salt's argument restrictions ({fun: {args, kwargs}}) would widen nothing if ignored, but refusing says it plainly
    throw bad(where, 'only function regexes are supported in a target list (no argument restrictions)');
  });
}

/** One entry of a name's list, as Salt reads it: a string, or {target or @form: [function regexes]}. */
function grantsOf(item: unknown, where: string): Grant[] {
  if (typeof item === 'string') return SPECIALS.includes(item) ? [{ special: item as Special, funs: null }] : [{ target: null, funs: [item] }];
  if (item && typeof item === 'object' && !Array.isArray(item)) {
    return Object.entries(item).map(([k, v]) =>
      SPECIALS.includes(k) ? { special: k as Special, funs: regexList(v, `${where}: ${k}`) } : { target: k, funs: regexList(v, `${where}: ${k}`) },
    );
  }
  throw bad(where, `an entry must be a function regex, '@runner', '@wheel', '@jobs' or {target: [function regexes]}, not ${JSON.stringify(item)}`);
}

/** Checks external_auth at start, so a typo fails the master rather than a user's call. */
export function checkExternalAuth(ea: unknown): ExternalAuth {
  if (ea === undefined || ea === null) return {};
  if (typeof ea !== 'object' || Array.isArray(ea)) throw bad('external_auth', 'expected {eauth: {name: [permissions]}}');
  for (const [eauth, names] of Object.entries(ea)) {
    if (eauth !== 'local' && eauth !== 'ldap') throw bad(`external_auth.${eauth}`, "Brine has the 'local' and 'ldap' backends");
    if (!names || typeof names !== 'object' || Array.isArray(names)) throw bad(`external_auth.${eauth}`, 'expected {name: [permissions]}');
    for (const [name, list] of Object.entries(names)) {
      if (!Array.isArray(list)) throw bad(`external_auth.${eauth}.${name}`, 'expected a list of permissions');
      list.forEach((item, i) => grantsOf(item, `external_auth.${eauth}.${name}[${i}]`));
    }
  }
  return ea as ExternalAuth;
}

/** A user's grants: their own name's, each of their groups' (`group%`) and '*' (every user of that backend). */
export function grantsFor(ea: ExternalAuth, eauth: 'local' | 'ldap', user: string, groups: string[]): Grant[] | undefined {
  const section = ea[eauth] ?? {};
  const names = [user, ...groups.map((g) => `${g}%`), '*'].filter((n) => Object.hasOwn(section, n));
  if (names.length === 0) return undefined;
  return names.flatMap((n) => section[n]!.flatMap((item, i) => grantsOf(item, `external_auth.${eauth}.${n}[${i}]`)));
}

/** Python's re.match (anchored at the start), on RE2 as targets use it; a bad regex grants nothing. */
function funMatches(pattern: string, fun: string): boolean {
  try {
    return matchTarget(pattern, 'pcre', { id: fun, grains: {} });
  } catch {
    return false;
  }
}

function minionMatches(target: string | null, id: string, grains: Record<string, unknown>): boolean {
  if (target === null) return true;
  try {
    return matchTarget(target, 'compound', { id, grains });
  } catch {
    return false;
  }
}

/** May this identity run `fun` on this minion? */
export function mayRun(who: Identity, fun: string, id: string, grains: Record<string, unknown>): boolean {
  if (who.admin) return true;
  return who.grants.some((g) => 'target' in g && g.funs.some((f) => funMatches(f, fun)) && minionMatches(g.target, id, grains));
}

/** May this identity see this minion at all (some function on it)? */
export function maySee(who: Identity, id: string, grains: Record<string, unknown>): boolean {
  if (who.admin) return true;
  return who.grants.some((g) => 'target' in g && minionMatches(g.target, id, grains));
}

/** A special form, optionally for one function of it (`@runner: [state.orch]`). */
export function maySpecial(who: Identity, special: Special, fun?: string): boolean {
  if (who.admin) return true;
  return who.grants.some((g) => 'special' in g && g.special === special && (g.funs === null || fun === undefined || g.funs.some((f) => funMatches(f, fun))));
}
