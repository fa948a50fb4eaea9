/**
 * The render stage: one SLS (or top) file -> raw high data. The renderer pipe (`#!jinja|yaml`
 * by default) runs Jinja first, then YAML; the result must be a dictionary.
 */
import type { Diagnostic, HighData } from '@brine/core';
import { compilerErrors } from '../errors.js';
import type { StateTree } from '../state-tree.js';
import {
  collectPositions,
  createJinjaEnvironment,
  askable,
  describeHostCall,
  MJS_RENDER_CALL,
  HostCallError,
  HostCallRecorder,
  loadYaml,
  saltTemplateVars,
  topLevelKeyOrder,
  TemplateFailure,
  type JinjaEnvironment,
} from '@brine/jinja';
import { minionOpts } from './opts.js';
import type { PositionMap, RenderContext, RenderInput, RenderOutput } from './types.js';

const environments = new WeakMap<StateTree, Map<string, JinjaEnvironment>>();

/** One Jinja environment per (tree, env), made on first use. */
export function jinjaEnvironmentFor(tree: StateTree, env: string): JinjaEnvironment {
  let byEnv = environments.get(tree);
  if (!byEnv) {
    byEnv = new Map();
    environments.set(tree, byEnv);
  }
  let jinja = byEnv.get(env);
  if (!jinja) {
    jinja = createJinjaEnvironment((path) => tree.read(env, path));
    byEnv.set(env, jinja);
  }
  return jinja;
}

/** The renderers of Salt's that Brine runs; gpg blocks are decrypted by the master. */
const SUPPORTED = new Set(['jinja', 'yaml', 'yamlex', 'json', 'gpg', 'mjs']);
/** The host call a `#!mjs` file is rendered through: answered by the master (or brine local), never a minion. */
export { MJS_RENDER_CALL };
/** Salt renderers that run Python (or a Python template engine): never run here. */
const PYTHON = new Set(['py', 'pyobjects', 'pydsl', 'stateconf', 'mako', 'wempy', 'genshi', 'cheetah']);
/** Salt's armoured PGP message, found anywhere in a string as its gpg renderer does. */
export const PGP_MESSAGE = /-----BEGIN PGP MESSAGE-----[\s\S]*?-----END PGP MESSAGE-----/g;

type Where = { file: string; sls: string | undefined; env: string };

function refusePipe(pipe: string[], file: string, where: Where): Diagnostic | undefined {
  const at = { ...where, line: 1, column: 1 };
  const python = pipe.find((p) => PYTHON.has(p));
  if (python !== undefined) return compilerErrors.diag('BRINE_ERR_COMPILE_RENDERER_PYTHON', { file, renderer: python }, at);
  const unknown = pipe.find((p) => !SUPPORTED.has(p));
  if (unknown !== undefined || pipe.length === 0) return compilerErrors.diag('BRINE_ERR_COMPILE_RENDERER', { file, renderer: unknown ?? '' }, at);
  if (pipe.includes('mjs') && pipe.length > 1) return compilerErrors.diag('BRINE_ERR_COMPILE_RENDERER_MJS_ALONE', { file }, at);
  return undefined;
}

function pipeOrder(file: string, renderer: string, where: Where): Diagnostic {
  return compilerErrors.diag('BRINE_ERR_COMPILE_RENDERER', { file, renderer: `${renderer} after a data renderer` }, { ...where, line: 1, column: 1 });
}

/** The armoured blocks in the string values of a rendered file (keys are not decrypted, as in Salt). */
export function gpgBlocks(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') {
    for (const m of value.matchAll(PGP_MESSAGE)) out.push(m[0]);
  } else if (Array.isArray(value)) {
    for (const v of value) gpgBlocks(v, out);
  } else if (value !== null && typeof value === 'object') {
    for (const v of Object.values(value)) gpgBlocks(v, out);
  }
  return out;
}

/** `#!jinja|yaml` on the first line; Salt's default pipe when there is none. */
export function rendererPipe(text: string): { pipe: string[]; body: string } {
  if (!text.startsWith('#!')) return { pipe: ['jinja', 'yaml'], body: text };
  const nl = text.indexOf('\n');
  const line = nl < 0 ? text.slice(2) : text.slice(2, nl);
  const pipe = line
    .split('|')
    .map((p) => p.trim().split(/\s+/)[0].toLowerCase())
    .filter((p) => p !== '');
  // Blank the shebang line so line numbers stay those of the file.
  return { pipe, body: nl < 0 ? '' : text.slice(nl) };
}

function hasJinja(text: string): boolean {
  return text.includes('{{') || text.includes('{%') || text.includes('{#');
}

/** The variables a template sees: grains, pillar, salt, sls paths, ... */
export function templateVars(input: RenderInput, host?: HostCallRecorder): Record<string, unknown> {
  const ctx: RenderContext = input.context;
  const vars: Record<string, unknown> = {
    ...saltTemplateVars({
      path: input.path,
      grains: ctx.grains ?? {},
      pillar: ctx.pillar ?? {},
      opts: { ...minionOpts(), ...(ctx.opts ?? {}) },
      ...(ctx.salt ? { salt: ctx.salt } : {}),
      ...(host ? { host } : {}),
      listFiles: () => input.tree.list(input.env),
      ...(ctx.log ? { log: ctx.log } : {}),
    }),
    params: ctx.params ?? {},
    saltenv: input.env,
  };
  const tplfile = input.path;
  if (input.sls !== undefined) {
    const isInit = tplfile.endsWith('/init.sls') || tplfile === 'init.sls';
    const parts = input.sls.split('.');
    const slspath = (isInit ? parts : parts.slice(0, -1)).join('/');
    Object.assign(vars, {
      sls: input.sls,
      slspath,
      sls_path: slspath.replace(/\//g, '_'),
      slsdotpath: slspath.replace(/\//g, '.'),
      slscolonpath: slspath.replace(/\//g, ':'),
    });
  }
  return Object.assign(vars, ctx.extra ?? {});
}

function describe(v: unknown): string {
  if (v === null) return 'None';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'string') return v.length > 40 ? `the string '${v.slice(0, 40)}...'` : `the string '${v}'`;
  return typeof v;
}

/** Renders one file to raw high data, with positions and coded diagnostics. */
export function renderSls(input: RenderInput): RenderOutput {
  const host = new HostCallRecorder(input.context.hostAnswers, input.speculative);
  const out = renderWith(input, host);
  const calls = host.calls();
  if (calls.length === 0) return out;
  for (const c of calls) c.env = input.env;
  out.hostCalls = calls;
  if (calls.every((c) => c.answered)) return out;
  // the calls to ask; a speculative render may have none yet, and still fails
  const askNow = calls.filter(askable);
  const missing = askNow.length ? askNow : calls.filter((c) => !c.answered).slice(0, 1);
  // Placeholders stood in for the answers: what the file rendered to is kept aside only so that
  // the includes it names are rendered (and their host calls collected) in the same round.
  if (out.high) out.guess = out.high;
  out.high = undefined;
  out.diagnostics = missing.map((c) =>
    compilerErrors.diag(
      'BRINE_ERR_COMPILE_HOST_CALL',
      { call: describeHostCall(c) },
      { file: c.file ?? input.path, line: c.line, column: c.column, sls: input.sls, env: input.env },
    ),
  );
  return out;
}

function renderWith(input: RenderInput, host: HostCallRecorder): RenderOutput {
  const file = input.path;
  const positions: PositionMap = { file, ids: {} };
  const fail = (d: Diagnostic): RenderOutput => ({ high: undefined, positions, diagnostics: [d] });
  const where = { file, sls: input.sls, env: input.env };

  const { pipe, body } = rendererPipe(input.text);
  const refused = refusePipe(pipe, file, where);
  if (refused) return fail(refused);

  // each renderer in turn, as Salt runs the pipe: text until a data renderer reads it
  let value: unknown = body;
  let keyOrder: string[] | undefined;
  for (const r of pipe) {
    if (r === 'jinja') {
      if (typeof value !== 'string') return fail(pipeOrder(file, r, where));
      if (!hasJinja(value)) continue;
      try {
        value = jinjaEnvironmentFor(input.tree, input.env).render(file, value, templateVars(input, host));
      } catch (e) {
        if (!(e instanceof TemplateFailure)) throw e;
        const at = { ...where, file: e.file ?? file, line: e.line, column: e.column };
        if (e.code === 'BRINE_ERR_COMPILE_RENDER_TIMEOUT')
          return fail(compilerErrors.diag('BRINE_ERR_COMPILE_RENDER_TIMEOUT', { file: e.file ?? file, detail: e.message }, at));
        return fail(compilerErrors.diag('BRINE_ERR_COMPILE_TEMPLATE', { detail: e.message }, at));
      }
    } else if (r === 'yaml' || r === 'yamlex') {
      if (typeof value !== 'string') continue;
      const res = loadYaml(value, { yamlex: r === 'yamlex' });
      if (res.error) {
        return fail(compilerErrors.diag('BRINE_ERR_COMPILE_YAML', { detail: res.error.message }, { ...where, line: res.error.line, column: res.error.column }));
      }
      value = res.value;
      if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
        Object.assign(positions, collectPositions(res, file));
        if (Object.keys(value).some(isIndexKey)) keyOrder = topLevelKeyOrder(res);
      }
    } else if (r === 'json') {
      if (typeof value !== 'string') continue;
      try {
        value = value.trim() === '' ? null : JSON.parse(value);
      } catch (e) {
        return fail(compilerErrors.diag('BRINE_ERR_COMPILE_YAML', { detail: `bad JSON: ${(e as Error).message}` }, where));
      }
    } else if (r === 'mjs') {
      // the module is the author's code: it runs in a confined process of whoever answers host
      // calls (the master, or brine local), never in this one; its context is the template's
      const { grains = {}, pillar = {} } = input.context;
      const context = { id: grains.id ?? null, grains, pillar, saltenv: input.env, sls: input.sls ?? null };
      try {
        value = host.call(MJS_RENDER_CALL, [file, body, context], { file, line: 1, column: 1 });
      } catch (e) {
        if (!(e instanceof HostCallError)) throw e;
        return fail(
          compilerErrors.diag(
            'BRINE_ERR_COMPILE_MJS',
            { file, detail: e.message.replace(/^.*? failed on the minion: /, '') },
            { ...where, line: 1, column: 1 },
          ),
        );
      }
      // unanswered yet: the render is asked for and this file rendered again with its answer
      if (value === null) return { high: {}, positions, diagnostics: [] };
    } else if (r === 'gpg') {
      const blocks = gpgBlocks(value);
      if (blocks.length === 0) continue;
      // decrypted on the master after the render (workers cannot run gpg): the pillar collects them
      const sink = input.context.gpg;
      if (!sink) return fail(compilerErrors.diag('BRINE_ERR_COMPILE_GPG_NOT_HERE', { file }, { ...where, line: 1, column: 1 }));
      for (const b of blocks) if (!sink.has(b)) sink.set(b, file);
    }
  }
  if (typeof value === 'string') value = value.trim() === '' ? null : value;

  if (value === null || value === undefined) return { high: {}, positions, diagnostics: [] };
  if (typeof value !== 'object' || Array.isArray(value)) {
    return fail(compilerErrors.diag('BRINE_ERR_COMPILE_NOT_A_DICT', { sls: input.sls ?? file, got: describe(value) }, { ...where, line: 1, column: 1 }));
  }
  const out: RenderOutput = { high: value as HighData, positions, diagnostics: [] };
  if (keyOrder) out.keyOrder = keyOrder;
  return out;
}

/** Keys JavaScript objects keep in numeric order ahead of every other key. */
function isIndexKey(key: string): boolean {
  return /^(0|[1-9]\d{0,9})$/.test(key) && Number(key) < 4294967295;
}
