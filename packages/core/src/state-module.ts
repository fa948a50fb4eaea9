import type { LowChunk, RunningDict } from './types.js';

/**
 * The one interface every state module implements, and what the runtime hands a state function.
 * The runtime and the states package meet only through these types.
 */

export interface CommandOptions {
  cwd?: string;
  env?: Record<string, string>;
  /** Run as this user (needs root). */
  runas?: string;
  /** Shell to run a string command with; default /bin/sh. */
  shell?: string;
  stdin?: string;
  timeoutMs?: number;
  /** Aborting it ends the command's process group (SIGTERM, then SIGKILL); used by job kills. */
  signal?: AbortSignal;
}

export interface CommandResult {
  retcode: number;
  stdout: string;
  stderr: string;
  pid: number;
}

/** Runs commands on the host; injected so tests and test mode can see every call. */
export interface CommandRunner {
  run(command: string | string[], options?: CommandOptions): Promise<CommandResult>;
}

/** Fetches `salt://` files (from a local tree or the master's file server). */
export interface FileClient {
  /** The file's bytes, or undefined when the env has no such file. */
  get(url: string, env: string): Promise<Buffer | undefined>;
  /**
   * The files below the folder `prefix` of `env` (paths from the env's root, `/`-separated;
   * Salt's cp.list_master with a prefix). Without it, file.recurse cannot run.
   */
  list?(prefix: string, env: string): Promise<string[]>;
}

/** What a state function returns. `result: null` means "would change" (test mode). */
export interface StateReturn {
  name: string;
  result: boolean | null;
  changes: Record<string, unknown>;
  comment: string;
  /** The resource before the state ran (resource contract; argument binding reads new_state). */
  old_state?: unknown;
  new_state?: unknown;
  [extra: string]: unknown;
}

/** One parameter of an execution function, as module.run's legacy syntax binds it. */
export interface ExecParamSpec {
  name: string;
  required?: boolean;
  default?: unknown;
}

/** An execution function's signature (Python's argspec): parameters, *args, **kwargs. */
export interface ExecFunctionSpec {
  params: ExecParamSpec[];
  varArgs?: boolean;
  extraKwargs?: boolean;
}

/**
 * The host's execution functions (Salt's __salt__), injected by whoever runs states (the minion,
 * brine local): unless/onlyif `fun:` entries and the module.run state call through it.
 */
export interface ExecCaller {
  /** Runs `fun` as code calls it (not the command line): its value and the retcode it set. */
  call(fun: string, args: unknown[], kwargs: Record<string, unknown>): Promise<{ return: unknown; retcode: number }>;
  /** The function's signature, or undefined when this host has no such function. */
  spec(fun: string): ExecFunctionSpec | undefined;
}

export interface StateContext {
  /** The seed's `__low__`: this chunk. */
  low: LowChunk;
  /** The seed's `__running__`: results so far. */
  running: RunningDict;
  /** The seed's `__lowstate__`: the whole ordered low state. */
  lowstate: LowChunk[];
  test: boolean;
  cmd: CommandRunner;
  files: FileClient;
  /** Template context for `template: jinja` (grains, pillar, ...). */
  templateContext?: Record<string, unknown>;
  /** The host's execution functions, when the caller provides them. */
  exec?: ExecCaller;
}

export type ArgType = 'string' | 'number' | 'boolean' | 'list' | 'dict' | 'any';

export interface ArgSpec {
  type: ArgType | ArgType[];
  required?: boolean;
  default?: unknown;
  doc?: string;
}

export interface StateFunction {
  /**
   * Arguments the function takes besides `name`. Unknown ones are passed with `extraArgs`,
   * refused with `strictArgs` (Salt's function has no `**kwargs`), else ignored as Salt does.
   */
  args: Record<string, ArgSpec>;
  extraArgs?: boolean;
  strictArgs?: boolean;
  /** A function with nothing to wait for may return its result directly: the runtime then makes no promise for it. */
  run(args: Record<string, unknown>, ctx: StateContext): StateReturn | Promise<StateReturn>;
}

export interface Availability {
  available: boolean;
  /** Why not, when not available (e.g. "systemctl not found"). */
  reason?: string;
}

export interface StateModule {
  name: string;
  functions: Record<string, StateFunction>;
  /** Whether this module works on this host, and why not. */
  available(): Availability | Promise<Availability>;
  /** Called when a watched state changed (restart a service, re-run a command). */
  modWatch?(args: Record<string, unknown>, ctx: StateContext): Promise<StateReturn>;
}

/** Looks up `module.function`; the states package builds one from its modules. */
export interface StateRegistry {
  module(name: string): StateModule | undefined;
  lookup(state: string, fun: string): { module: StateModule; fn: StateFunction } | undefined;
  list(): string[];
}
