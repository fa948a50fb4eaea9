import type { CommandRunner, FileClient } from '@brine/core';

/** The shapes of an execution function and what it is called with (function.ts binds the arguments, registry.ts holds the functions). */
export type ParamType = 'string' | 'number' | 'boolean' | 'list' | 'dict' | 'any';

export interface Param {
  name: string;
  type: ParamType | ParamType[];
  required?: boolean;
  default?: unknown;
}

/** What an execution function sees of the host it runs on. */
export interface ExecContext {
  /** The job's id ('' outside a job: brine local, a template's host call, an onlyif check). */
  jid: string;
  grains: Record<string, unknown>;
  /** This host's pillar: the minion asks its master, brine local has it already. */
  pillar(): Promise<Record<string, unknown>>;
  /** The minion's configuration (Salt's __opts__), read by config.get and config.option. */
  opts: Record<string, unknown>;
  version: string;
  signal: AbortSignal;
  cmd: CommandRunner;
  /** The registry the function was called through (sys.*, module.run). */
  registry: ExecTable;
  /**
   * Called straight from the command line or a job (Salt's __pub_jid is set), not from code
   * (module.run, unless/onlyif fun:, templates): cmd.* then default to python_shell=True.
   */
  direct?: boolean;
  // ---- the operators' everyday functions (cp.*, persisted grains); absent where there are none
  /** salt:// of this host's file server: the master's on a minion, the roots in `brine local`. */
  files?: FileClient;
  /** Where cp.cache_file keeps files (`<cacheDir>/files/<env>/<path>`, as the minion's file cache). */
  cacheDir?: string;
  /** The YAML file grains.setval & co persist to (Salt's `grains` file). */
  grainsFile?: string;
  /** Called after grains.setval & co changed `grains` (the minion sends them to its master). */
  grainsChanged?(): Promise<void>;
}

/** The function's value, and the retcode of the job (0 unless the function says otherwise). */
export interface ExecResult {
  return: unknown;
  retcode?: number;
}

/** What a function may ask of the registry it was called through (ExecRegistry is one). */
export interface ExecTable {
  lookup(name: string): ExecFunction | undefined;
  /** Like lookup, but an unknown name is Salt's "'x.y' is not available." */
  get(name: string): ExecFunction;
  list(...patterns: string[]): string[];
  modules(): string[];
  doc(...patterns: string[]): Record<string, string>;
}

/**
 * One execution function (`mod.fun`). Callers that add host-specific context (the minion's
 * master channel) widen C; the registry does not look inside.
 */
export interface ExecFunction<C extends ExecContext = ExecContext> {
  name: string;
  doc: string;
  params: Param[];
  /** Extra positional arguments go to `args` (Python's *args) instead of being refused. */
  varArgs?: boolean;
  /** Unknown keyword arguments go to `kwargs` (Python's **kwargs) instead of being refused. */
  extraKwargs?: boolean;
  /**
   * Returns at once (no promise), reads nothing of its context and changes nothing on the host:
   * the minion runs it inside its admission's commit (test.ping), with no running record.
   */
  pure?: boolean;
  run(args: Record<string, unknown>, ctx: C): Promise<ExecResult> | ExecResult;
}
