/**
 * Host calls: execution functions only the host can answer (`cmd.has_exec`, `user.info`,
 * `file.file_exists`, `pkg.version`, `cmd.run`, ...) when a template is rendered somewhere else.
 * A render gets a table of answers (data in) and reports every host call it made (data out); a
 * call whose answer is not in the table gets a placeholder so the render can go on collecting,
 * and the render is then incomplete: its caller asks the host for the missing answers and
 * renders again. A placeholder never reaches a result.
 */
import { splitArgs } from './python.js';
import { deepCopy } from './traverse.js';

/** One call as the host runs it: `salt['fun'](*args, **kwargs)`. */
export interface HostCall {
  fun: string;
  args: unknown[];
  kwargs: Record<string, unknown>;
}

/** Where a template made a call (the file the call is written in, 1-based line and column). */
export interface CallSite {
  /** The environment of the file (set by the SLS renderer). */
  env?: string;
  file?: string;
  line?: number;
  column?: number;
}

/** The host's answer to one call: its value, or the error it raised. */
export type HostAnswer = { ok: true; value: unknown } | { ok: false; code: string; message: string };

/** Answers by call key (hostCallKey). */
export type HostAnswers = ReadonlyMap<string, HostAnswer>;

/** A call a render made: the first place it was made, and whether the table answered it. */
export interface HostCallRecord extends HostCall, CallSite {
  key: string;
  answered: boolean;
  /**
   * Made after a placeholder stood in for an answer: the call, its arguments or the branch it is
   * in may come from the placeholder, and the real render may never make it.
   */
  speculative: boolean;
}

/**
 * Functions that only read the host. A speculative call is asked only when it is one of them:
 * asking one the real render would not make costs a little time, while running a command the
 * real render would not run (`cmd.run` in a branch a placeholder chose) would change the host.
 */
const QUERIES = new Set([
  'cmd.has_exec',
  'cmd.which',
  'cmd.which_bin',
  'user.info',
  'user.list_users',
  'user.list_groups',
  'user.primary_group',
  'group.info',
  'group.getent',
  'file.file_exists',
  'file.directory_exists',
  'file.exists',
  'file.is_link',
  'file.readlink',
  'file.contains',
  'file.contains_regex',
  'file.contains_glob',
  'file.read',
  'file.stats',
  'file.get_hash',
  'file.find',
  'file.search',
  'pkg.version',
  'pkg.list_pkgs',
  'pkg.latest_version',
  'pkg.version_cmp',
  'pkg.info_installed',
  'service.status',
  'service.available',
  'service.missing',
  'service.enabled',
  'service.disabled',
  'service.get_all',
  'service.get_enabled',
  'service.get_disabled',
  'network.ip_addrs',
  'network.ip_addrs6',
  'network.interfaces',
  'network.interface_ip',
  'network.hw_addr',
  'network.subnets',
  'network.subnets6',
  'network.get_hostname',
  'network.get_fqdn',
  'network.default_route',
  'status.uptime',
  'status.loadavg',
  'mine.get',
  'test.ping',
  'test.true',
  'test.false',
  'test.echo',
  'sys.list_functions',
  'sys.doc',
]);

/** Whether a caller that can ask the host should ask this call now (see QUERIES). */
export function askable(c: HostCallRecord): boolean {
  return !c.answered && (!c.speculative || QUERIES.has(c.fun));
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) out[k] = sortKeys((v as Record<string, unknown>)[k]);
    return out;
  }
  return v;
}

/** The same function with the same arguments is one call, however its keywords were ordered. */
export function hostCallKey(call: HostCall): string {
  return JSON.stringify([call.fun, sortKeys(call.args), sortKeys(call.kwargs)]);
}

/** The host call a `#!mjs` file is rendered through (its source and context are its arguments). */
export const MJS_RENDER_CALL = 'renderer.mjs';

/** The call as `salt['fun'](args, k=v)`, for messages. */
export function describeHostCall(call: HostCall): string {
  // its arguments are the module's source and the minion's grains and pillar: never in a message
  if (call.fun === MJS_RENDER_CALL) return `the #!mjs render of ${JSON.stringify(call.args[0])}`;
  const parts = [...call.args.map((a) => JSON.stringify(a) ?? 'None'), ...Object.entries(call.kwargs).map(([k, v]) => `${k}=${JSON.stringify(v) ?? 'None'}`)];
  return `salt['${call.fun}'](${parts.join(', ')})`;
}

/** Marks a function as a host call: the dialect's call wrapper hands it the call site. */
export const HOST_FN = Symbol('brine.jinja.hostFn');

export type HostFn = ((...raw: unknown[]) => unknown) & { [HOST_FN]: (raw: unknown[], site: CallSite) => unknown };

/** A failed host call, raised in the template at the line that made it. */
export class HostCallError extends Error {
  readonly call: HostCall;
  readonly code: string;
  constructor(call: HostCall, code: string, message: string) {
    super(message);
    this.call = call;
    this.code = code;
    this.name = 'HostCallError';
  }
}

/**
 * The host calls of one render: answers from the table, the rest recorded. `calls()` lists every
 * call made, once per key, in the order first made.
 */
export class HostCallRecorder {
  private readonly made = new Map<string, HostCallRecord>();
  private readonly fns = new Map<string, HostFn>();
  /** A placeholder has been handed out: every later call is speculative. */
  private guessing: boolean;

  /** `speculative`: the render itself depends on placeholders (a file included by one that had them). */
  private readonly answers: HostAnswers | undefined;
  constructor(answers: HostAnswers | undefined, speculative = false) {
    this.answers = answers;
    this.guessing = speculative;
  }

  /** The function templates call for `fun` (one per name and render). */
  fn(fun: string): HostFn {
    let f = this.fns.get(fun);
    if (!f) {
      const call = (raw: unknown[], site: CallSite) => this.call(fun, raw, site);
      f = Object.assign((...raw: unknown[]) => call(raw, {}), { [HOST_FN]: call });
      this.fns.set(fun, f);
    }
    return f;
  }

  call(fun: string, raw: unknown[], site: CallSite): unknown {
    const { args, kwargs } = splitArgs(raw);
    const c: HostCall = { fun, args, kwargs: { ...kwargs } };
    const key = hostCallKey(c);
    const answer = this.answers?.get(key);
    if (!this.made.has(key)) this.made.set(key, { ...c, ...site, key, answered: answer !== undefined, speculative: this.guessing });
    if (answer === undefined) {
      this.guessing = true;
      return null;
    }
    if (!answer.ok) throw new HostCallError(c, answer.code, `${describeHostCall(c)} failed on the minion: ${answer.message}`);
    // a template may change what it got (`do info.update(...)`); the table serves every render
    return deepCopy(answer.value);
  }

  calls(): HostCallRecord[] {
    return [...this.made.values()];
  }
}
