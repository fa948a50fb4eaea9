/**
 * `brine validate`: renders SLS files with a recording params object and reports, beside the
 * high data and low chunks, the parameters every state uses and the ones its META section does
 * not document (the Idem validate sub-command's output, see the seed
 * idem-sls-parameter-validation). Rendering with stand-ins takes every `if` on a parameter and
 * loops once over a list or dict parameter: the result is one possible shape of the file, good
 * for documentation, not a compile of real values.
 */
import type { Diagnostic, HighData, LowChunk } from '@brine/core';
import { deepCopy, type HostCallRecord } from '@brine/jinja';
import type { MetaSections } from '../gather.js';
import { compileSls, type CompileOptions } from '../pipeline.js';
import { renderSls } from '../render/index.js';
import type { RenderInput, RenderOutput } from '../render/types.js';
import { validateErrors } from './errors.js';
import { ParamRecorder, type ParamNode } from './recording-params.js';
import { addPath, dottedPath, missingFromMeta, refsInDecl, type ParamTree } from './trace.js';

export interface ValidateReport {
  /** Each ID as its file rendered it (before Salt's standardisation), with `__sls__`. */
  high: Record<string, unknown>;
  /** The ordered low chunks Brine compiles from it (Salt's shape and order). */
  low: LowChunk[];
  meta: MetaSections;
  parameters: {
    /** Every parameter the templates read, nested, with defaults ('' when none). */
    GLOBAL: ParamTree;
    /** Per state, keyed `<sls>.<id>`: the parameters it uses. */
    ID_DECS: Record<string, ParamTree>;
  };
  warnings: {
    /** What could not be traced to a state. */
    GLOBAL: string[];
    ID_DECS: Record<string, { params_meta_missing: string[] }>;
  };
}

export interface ValidateResult {
  report: ValidateReport;
  /** The compiler's diagnostics (errors and warnings with file and line), for stderr. */
  diagnostics: Diagnostic[];
  /** True when some stage reported an error: `low` is then empty. */
  failed: boolean;
  /** The host calls the templates made (see compileAsking). */
  hostCalls: HostCallRecord[];
}

export type ValidateOptions = Omit<CompileOptions, 'params' | 'render'> & {
  /** Defaults to renderSls. */
  render?: (input: RenderInput) => RenderOutput;
};

interface RenderedFile {
  env: string;
  sls: string;
  high: HighData;
}

function isDict(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

const FILE_KEYS = new Set(['include', 'extend', 'exclude', 'META']);

/**
 * Idem lets a state declaration be a dictionary of arguments (`state.a.present: {group: x}`);
 * Salt and Brine want a list. For validation it is read as the list of its arguments, with a
 * warning so the file is not mistaken for one `brine local` accepts.
 */
function listifyDictDeclarations(out: RenderOutput, input: RenderInput): void {
  const high = out.high;
  if (!high) return;
  for (const [id, body] of Object.entries(high)) {
    if (FILE_KEYS.has(id) || id.startsWith('__') || !isDict(body)) continue;
    for (const [state, decl] of Object.entries(body)) {
      if (state === 'META' || state.startsWith('__') || !isDict(decl)) continue;
      body[state] = Object.entries(decl).map(([k, v]) => ({ [k]: v }));
      const pos = out.positions.ids[id]?.states[state] ?? out.positions.ids[id]?.pos;
      out.diagnostics.push(
        validateErrors.diag(
          'BRINE_ERR_VALIDATE_DICT_DECLARATION',
          { id, state },
          { file: input.path, line: pos?.line, column: pos?.column, sls: input.sls, env: input.env, id },
          'warning',
        ),
      );
    }
  }
}

/** The seed's `high`: every ID of every file rendered, in render order, with its `__sls__`. */
function highOf(files: RenderedFile[]): Record<string, unknown> {
  const high: Record<string, unknown> = {};
  for (const f of files) {
    for (const [id, body] of Object.entries(f.high)) {
      if (FILE_KEYS.has(id) || id in high) continue;
      if (isDict(body)) {
        const { META: _meta, ...rest } = body;
        high[id] = { ...rest, __sls__: f.sls };
      } else {
        high[id] = body;
      }
    }
  }
  return high;
}

/** The nodes a state's markers reach, with their ancestors and descendants. */
function cover(covered: Set<ParamNode>, node: ParamNode): void {
  for (let n: ParamNode | undefined = node; n; n = n.parent) covered.add(n);
  const down = (n: ParamNode): void => {
    for (const c of n.children.values()) {
      covered.add(c);
      down(c);
    }
  };
  down(node);
}

function untraced(recorder: ParamRecorder, covered: Set<ParamNode>): string[] {
  const out: string[] = [];
  const walk = (n: ParamNode): void => {
    for (const c of n.children.values()) {
      if (!covered.has(c)) {
        out.push(`parameter '${dottedPath(c.path)}' is read by the templates but reaches no state (used in a condition, a loop bound or a filter?)`);
        continue;
      }
      walk(c);
    }
  };
  walk(recorder.root);
  return out;
}

function conflictingDefaults(recorder: ParamRecorder): string[] {
  const out: string[] = [];
  const walk = (n: ParamNode): void => {
    const given = [...new Set(n.defaults.filter((d) => d !== null && d !== undefined).map((d) => JSON.stringify(d)))];
    if (given.length > 1) out.push(`parameter '${dottedPath(n.path)}' has different defaults: ${given.join(', ')}`);
    for (const c of n.children.values()) walk(c);
  };
  walk(recorder.root);
  return out;
}

/** META `params` of a state over those of its file (which document every state of the file). */
function metaParams(meta: MetaSections, sls: string, key: string): unknown {
  const own = meta.ID_DECS[key];
  const file = meta.SLS[sls];
  const ownParams = isDict(own) && isDict(own.params) ? own.params : undefined;
  const fileParams = isDict(file) && isDict(file.params) ? file.params : undefined;
  if (!ownParams && !fileParams) return undefined;
  return { ...fileParams, ...ownParams };
}

/** Renders and compiles `sls` (in `env`) with recording params; never throws for template problems. */
export function validateSls(opts: ValidateOptions, sls: string[], env = 'base'): ValidateResult {
  const recorder = new ParamRecorder();
  const files: RenderedFile[] = [];
  const render = opts.render ?? renderSls;
  const recordingRender = (input: RenderInput): RenderOutput => {
    const out = render(input);
    if (out.high && input.sls !== undefined) {
      files.push({ env: input.env, sls: input.sls, high: deepCopy(out.high) });
      listifyDictDeclarations(out, input);
    }
    return out;
  };
  const compiled = compileSls({ ...opts, params: recorder.params as unknown as Record<string, unknown>, render: recordingRender }, sls, env);

  const rawHigh = highOf(files);
  const idDecs: Record<string, ParamTree> = {};
  const slsOfKey = new Map<string, string>();
  const covered = new Set<ParamNode>();
  let wholeParams = false;
  const trace = (slsName: string, id: string, body: unknown): void => {
    const key = `${slsName}.${recorder.restore(id)}`;
    slsOfKey.set(key, slsName);
    const tree: ParamTree = (idDecs[key] ??= {});
    for (const ref of refsInDecl(recorder, id, body)) {
      if (ref.node === recorder.root) wholeParams = true;
      cover(covered, ref.node);
      addPath(tree, ref.node);
    }
  };
  for (const [id, body] of Object.entries(rawHigh)) if (isDict(body)) trace(String(body.__sls__), id, body);
  // `extend:` blocks use parameters on behalf of the states they extend.
  for (const f of files) {
    const ext = f.high.extend;
    if (!isDict(ext)) continue;
    for (const [id, body] of Object.entries(ext)) {
      const target = rawHigh[id];
      trace(isDict(target) ? String(target.__sls__) : f.sls, id, body);
    }
  }

  const meta = recorder.restoreDeep(compiled.meta);
  const global: string[] = [];
  for (const n of recorder.notes) global.push(`${recorder.restore(`{{ ${n.expression} }}`)}: ${n.note}`);
  if (wholeParams) {
    global.push('the whole params dictionary is used as a value: its keys cannot be traced');
  }
  global.push(...untraced(recorder, covered));
  global.push(...conflictingDefaults(recorder));
  for (const d of compiled.diagnostics) {
    if (d.code === 'BRINE_ERR_COMPILE_TEMPLATE' && d.sls !== undefined) {
      global.push(`SLS '${d.sls}' does not render with recording params (${d.message}): its parameters are not traced`);
    }
  }

  const warnIds: ValidateReport['warnings']['ID_DECS'] = {};
  for (const [key, used] of Object.entries(idDecs)) {
    const missing = missingFromMeta(used, metaParams(meta, slsOfKey.get(key)!, key));
    if (missing.length > 0) warnIds[key] = { params_meta_missing: missing };
  }

  const global0 = recorder.root.shape();
  return {
    report: {
      high: recorder.restoreDeep(rawHigh),
      low: recorder.restoreDeep(compiled.low),
      meta,
      // A parameter used as another's key (`params.ports[params.get('name')]`) is a marker key.
      parameters: { GLOBAL: recorder.restoreDeep(isDict(global0) ? global0 : {}), ID_DECS: recorder.restoreDeep(idDecs) },
      warnings: { GLOBAL: global, ID_DECS: warnIds },
    },
    diagnostics: compiled.diagnostics.map((d) => ({ ...d, message: recorder.restore(d.message), ...(d.id ? { id: recorder.restore(d.id) } : {}) })),
    failed: compiled.failed,
    hostCalls: compiled.hostCalls,
  };
}
