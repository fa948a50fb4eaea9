/**
 * The functions `brine local` runs itself (compiles and state runs) rather than as execution
 * functions. Listed apart from their code so that `brine local test.ping` knows without loading
 * the compiler, the runtime and the state modules; the tables in functions.ts and apply.ts are
 * typed by these lists, so a name here without code (or code without a name) does not build.
 */
export const SHOW_FUNCTIONS = [
  'state.show_top',
  'state.show_highstate',
  'state.show_lowstate',
  'state.show_sls',
  'state.show_low_sls',
  'sys.list_state_functions',
  'sys.list_state_modules',
  'pillar.items',
] as const;

export const APPLY_FUNCTIONS = ['state.apply', 'state.highstate', 'state.sls', 'state.low', 'state.single', 'state.test', 'state.sls_id'] as const;

const ALL: ReadonlySet<string> = new Set([...SHOW_FUNCTIONS, ...APPLY_FUNCTIONS]);
const APPLY: ReadonlySet<string> = new Set(APPLY_FUNCTIONS);

export function isLocalFunction(fun: string): boolean {
  return ALL.has(fun);
}

/** A state run (the runtime and state modules are loaded), not a compile or a list. */
export function isApplyFunction(fun: string): boolean {
  return APPLY.has(fun);
}
