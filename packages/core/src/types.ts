/**
 * The data structures shared by every stage of the state system. They are plain JSON so that
 * they cross the wire and the store unchanged; key insertion order is meaningful (Salt users
 * read low chunks in the order Salt builds them).
 */

/** One entry of a state declaration's list: the function name, or a one-key argument dict. */
export type StateArg = string | Record<string, unknown>;

/** A requisite reference: `{state_module: id_or_name}` or `{sls: name}`. */
export type RequisiteRef = Record<string, string>;

/**
 * An ID declaration in standard form: state module names map to their argument lists; the
 * injected `__sls__`, `__env__` and `__sls_included_from__` sit beside them.
 */
export interface IdDeclaration {
  __sls__: string;
  __env__: string;
  __sls_included_from__?: string[];
  [stateModule: string]: StateArg[] | string | string[] | undefined;
}

/** An exclude entry: `{id: X}` or `{sls: Y}`. */
export type ExcludeEntry = { id: string } | { sls: string };

/** High data: IDs to declarations, plus the stashed `__extend__` and `__exclude__`. */
export interface HighData {
  __extend__?: Array<Record<string, Record<string, unknown>>>;
  __exclude__?: ExcludeEntry[];
  [id: string]: unknown;
}

/** The matches dictionary produced by the top stage: `{env: [sls, ...]}`. */
export type Matches = Record<string, string[]>;

/** A single function call: the bottom of the compiler. */
export interface LowChunk {
  state: string;
  name: string;
  __sls__: string;
  __env__: string;
  __id__: string;
  fun: string;
  order: number;
  __sls_included_from__?: string[];
  [arg: string]: unknown;
}

/** What one state function returned, as kept in the running dict. */
export interface StateResult {
  name: string;
  changes: Record<string, unknown>;
  result: boolean | null;
  comment: string;
  __sls__: string;
  __run_num__: number;
  __id__: string;
  start_time?: string;
  duration?: number;
  /** Resource contract (argument binding): the resource before and after the state ran. */
  old_state?: unknown;
  new_state?: unknown;
  [extra: string]: unknown;
}

/** Tag string `state_|-id_|-name_|-fun` to result. */
export type RunningDict = Record<string, StateResult>;

/** A place in a source file; 1-based line and column. */
export interface SourcePos {
  file: string;
  line: number;
  column: number;
}

export type Severity = 'error' | 'warning';

/** A coded finding of a pure stage: stages never throw for bad input, they report. */
export interface Diagnostic {
  code: string;
  severity: Severity;
  message: string;
  /** The file the problem is in (path relative to its file root, e.g. `web/init.sls`). */
  file?: string;
  line?: number;
  column?: number;
  sls?: string;
  env?: string;
  id?: string;
}

/** Every pure stage answers with data and its diagnostics. */
export interface StageResult<T> {
  value: T;
  diagnostics: Diagnostic[];
}

export type Grains = Record<string, unknown>;
export type Pillar = Record<string, unknown>;
