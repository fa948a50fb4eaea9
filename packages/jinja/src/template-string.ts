/**
 * Rendering a Jinja template that is not an SLS file (e.g. `file.managed` with
 * `template: jinja`): same dialect, filters and `salt` helpers, text out.
 */
import { createJinjaEnvironment, TemplateFailure, type TemplateReader } from './environment.js';
import { builtinHelpers, saltObject, type HelperData, type HelperTable } from './salt-helpers.js';
import { deepCopy } from './traverse.js';
import { describeHostCall, HostCallRecorder, type HostAnswers, type HostCallRecord } from './host-calls.js';

export interface TemplateStringOptions {
  /** The template's name (for error messages and `./` imports), e.g. `web/nginx.conf`. */
  name: string;
  /** Reads imported / included templates by path from the root; none when absent. */
  read?: TemplateReader;
  grains?: Record<string, unknown>;
  pillar?: Record<string, unknown>;
  opts?: Record<string, unknown>;
  salt?: HelperTable;
  /**
   * Answers to host calls. With them, the calls the template makes are reported in the result,
   * and a call without an answer makes the render fail as incomplete (`hostCalls` lists it).
   */
  hostAnswers?: HostAnswers;
  /** Further variables (`context`/`defaults` of file.managed). */
  vars?: Record<string, unknown>;
  /** Whether the `tpl*` path variables are set (default yes; Salt's file templates have none). */
  pathVars?: boolean;
}

/** Salt's `tpl*` variables for a template at `path` in its file root (`web/nginx.conf`). */
export function templatePathVars(path: string): Record<string, string> {
  const tplfile = path.replace(/^salt:\/\//, '').replace(/\?.*$/, '');
  const slash = tplfile.lastIndexOf('/');
  const tpldir = slash < 0 ? '.' : tplfile.slice(0, slash);
  return { tplpath: tplfile, tplfile, tpldir, tpldot: tpldir.replace(/\//g, '.'), tplroot: tpldir.split('/')[0]! };
}

export interface SaltVarsInput {
  /** The template's path in its root (or a salt:// URL). */
  path: string;
  grains: Record<string, unknown>;
  pillar: Record<string, unknown>;
  opts: Record<string, unknown>;
  salt?: HelperTable;
  /** Answers host calls (`cmd.has_exec`, ...) and records them; without it they fail. */
  host?: HostCallRecorder;
  listFiles?: () => string[];
  log?: HelperData['log'];
  /** Whether the `tpl*` path variables are set (default yes). */
  pathVars?: boolean;
}

/**
 * What every Salt template sees: grains, a copy of the pillar, opts, the `salt` helpers and the
 * `tpl*` paths. `opts.id` is read only when a template asks for it: the master shares compiles
 * between minions whose templates never looked at their id.
 */
export function saltTemplateVars(i: SaltVarsInput): Record<string, unknown> {
  const { grains } = i;
  const pillar = deepCopy(i.pillar);
  const opts: Record<string, unknown> = Object.defineProperty({}, 'id', {
    get: () => grains.id,
    set(this: Record<string, unknown>, v: unknown) {
      Object.defineProperty(this, 'id', { value: v, writable: true, enumerable: true, configurable: true });
    },
    enumerable: true,
    configurable: true,
  });
  // Salt's opts carry the minion's grains and pillar too
  Object.assign(opts, { grains, pillar }, i.opts);
  const helpers = builtinHelpers({ grains, pillar, opts, ...(i.listFiles ? { listFiles: i.listFiles } : {}), ...(i.log ? { log: i.log } : {}) });
  return { ...(i.pathVars === false ? {} : templatePathVars(i.path)), grains, pillar, opts, salt: saltObject(helpers, i.salt, i.host) };
}

export type TemplateStringResult = ({ ok: true; text: string } | { ok: false; error: TemplateFailure }) & {
  /** The host calls made (with hostAnswers only). */
  hostCalls?: HostCallRecord[];
};

const noFiles: TemplateReader = () => undefined;
const shared = new WeakMap<TemplateReader, ReturnType<typeof createJinjaEnvironment>>();

/** Renders `text` as a Jinja template; never throws for template errors. */
export function renderTemplateString(text: string, options: TemplateStringOptions): TemplateStringResult {
  const read = options.read ?? noFiles;
  let env = shared.get(read);
  if (!env) {
    env = createJinjaEnvironment(read);
    shared.set(read, env);
  }
  const host = options.hostAnswers ? new HostCallRecorder(options.hostAnswers) : undefined;
  const vars = {
    ...saltTemplateVars({
      path: options.name,
      grains: options.grains ?? {},
      pillar: options.pillar ?? {},
      opts: options.opts ?? {},
      salt: options.salt,
      ...(host ? { host } : {}),
      ...(options.pathVars === false ? { pathVars: false } : {}),
    }),
    ...(options.vars ?? {}),
  };
  let res: TemplateStringResult;
  try {
    res = { ok: true, text: env.render(options.name, text, vars) };
  } catch (e) {
    if (!(e instanceof TemplateFailure)) throw e;
    res = { ok: false, error: e };
  }
  if (!host) return res;
  const hostCalls = host.calls();
  const missing = hostCalls.find((c) => !c.answered && !c.speculative);
  // a placeholder answered the call: whatever came out is not the template's output
  if (missing)
    return {
      ok: false,
      error: new TemplateFailure(`${describeHostCall(missing)} has no answer from the host yet`, missing.file, missing.line, missing.column),
      hostCalls,
    };
  return { ...res, hostCalls };
}
