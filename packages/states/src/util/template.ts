import { toBrineError, type StateContext } from '@brine/core';
import { askable, renderTemplateString, type HostAnswer, type HostCallRecord, type TemplateReader } from '@brine/jinja';
import { statesErrors } from '../errors.js';

/**
 * File templates (`template: jinja` of file.managed, file.recurse, cmd.script, ...) render on
 * the host they configure, as Salt's do: the same Jinja dialect as SLS files, the host's
 * execution functions behind `salt[...]` (through ctx.exec, answered here: no round trip to a
 * master per call), and `{% import %}`/`{% include %}`/`import_yaml` read from salt:// through
 * ctx.files. The dialect renders synchronously while both are asynchronous, so a render runs in
 * rounds: render, fetch the files and run the calls it lacked, render again with them. A call
 * is run once per render, in the order the template makes it; a call made after a missing answer
 * runs in a later round unless it only reads the host (see askable).
 */

/** Rounds before giving up: each one adds at least one file or answer, so only a template whose
 * every answer leads to another call gets here. */
const ROUNDS = 64;

/** The variables of a file template beyond grains, pillar, opts and salt (Salt's `kws`). */
export interface FileTemplate {
  /** The engine named by `template:` (only jinja). */
  engine: string;
  /** The template's text. */
  text: string;
  /** The source as the state names it (`salt://x/y.conf`), for messages and `./` imports. */
  source: string;
  saltenv: string;
  /** source, name, user, group, mode, attrs and the state's extra keyword arguments, as Salt passes them. */
  vars: Record<string, unknown>;
  defaults?: unknown;
  context?: unknown;
}

function dictOr(v: unknown): Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

/** Salt's generate_sls_context without a template path: what an explicit `sls` variable adds. */
function slsVars(sls: unknown): Record<string, string> {
  const slspath = String(sls).replace(/\./g, '/');
  return { slspath, slsdotpath: slspath.replace(/\//g, '.'), slscolonpath: slspath.replace(/\//g, ':'), sls_path: slspath.replace(/\//g, '_') };
}

/** The template's variables: Salt's keyword arguments, then `defaults` updated by `context` over them. */
function templateVars(t: FileTemplate): Record<string, unknown> {
  const vars: Record<string, unknown> = { saltenv: t.saltenv, ...t.vars, ...dictOr(t.defaults), ...dictOr(t.context) };
  if ('sls' in vars) Object.assign(vars, slsVars(vars.sls));
  return vars;
}

/** Runs one host call here; a state run is not something a template may start. */
async function runCall(ctx: StateContext, c: HostCallRecord): Promise<HostAnswer> {
  const exec = ctx.exec!;
  try {
    if (!exec.spec(c.fun) || c.fun.startsWith('state.')) throw statesErrors.make('BRINE_ERR_STATES_TEMPLATE_FUNCTION', { fun: c.fun });
    const r = await exec.call(c.fun, c.args, c.kwargs);
    return { ok: true, value: r.return === undefined ? null : r.return };
  } catch (err) {
    const e = toBrineError(err);
    return { ok: false, code: e.code, message: e.message };
  }
}

/** Where the file client finds a template path the dialect asks for (`tpl/map.jinja`). */
async function fetchText(ctx: StateContext, path: string, saltenv: string): Promise<string | null> {
  const body = await ctx.files.get(`salt://${path}`, saltenv);
  return body === undefined ? null : body.toString('utf8');
}

/**
 * Renders a file template as Salt's file.get_managed does (see the file comment). A template
 * error throws with the template's name and line.
 */
export async function renderFileTemplate(ctx: StateContext, t: FileTemplate): Promise<string> {
  if (t.engine !== 'jinja') throw new Error(`template engine '${t.engine}' is not supported (only jinja)`);
  const { grains, pillar, opts, ...rest } = (ctx.templateContext ?? {}) as Record<string, Record<string, unknown> | undefined>;
  // the rest of the run's context (Brine's template `params`) is seen as in SLS files, under Salt's
  const vars = { ...rest, ...templateVars(t) };
  const name = t.source.replace(/^salt:\/\//, '').replace(/\?.*$/, '');
  const files = new Map<string, string | null>();
  let wanted = new Set<string>();
  const read: TemplateReader = (path) => {
    const text = files.get(path);
    if (text === undefined) wanted.add(path);
    return text ?? undefined;
  };
  const answers = new Map<string, HostAnswer>();
  for (let round = 0; ; round++) {
    wanted = new Set();
    const out = renderTemplateString(t.text, {
      name,
      read,
      ...(grains ? { grains } : {}),
      ...(pillar ? { pillar } : {}),
      ...(opts ? { opts } : {}),
      ...(ctx.exec ? { hostAnswers: answers } : {}),
      vars,
      pathVars: false,
    });
    const calls = (out.hostCalls ?? []).filter((c) => askable(c) && !answers.has(c.key));
    const reads = [...wanted].filter((p) => !files.has(p));
    if (calls.length === 0 && reads.length === 0) {
      if (out.ok) return out.text;
      const e = out.error;
      const where = e.line !== undefined ? ` (line ${e.line}${e.column !== undefined ? `, column ${e.column}` : ''})` : '';
      throw new Error(`${e.file && e.file !== name ? e.file : t.source}${where}: ${e.message}`);
    }
    if (round >= ROUNDS) throw statesErrors.make('BRINE_ERR_STATES_TEMPLATE_ROUNDS', { source: t.source, rounds: ROUNDS });
    for (const p of reads) files.set(p, await fetchText(ctx, p, t.saltenv));
    for (const c of calls) answers.set(c.key, await runCall(ctx, c));
  }
}
