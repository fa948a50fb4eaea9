import type { Diagnostic } from '@brine/core';
import { renderSls, targetEngines, topTargetType, type RenderOutput, type TargetType } from '@brine/compiler';
import { masterErrors } from './errors.js';
import type { TreeSnapshot } from './file-roots.js';

/** Matchers that read only the minion id, which the minion proved with its key. */
const ID_ONLY = new Set<TargetType>(['glob', 'pcre', 'list']);
/** How a compound term names the other engines, for the message. */
const LETTER: Partial<Record<TargetType, string>> = { grain: 'G', grain_pcre: 'P', pillar: 'I', pillar_pcre: 'J', ipcidr: 'S' };
/** What a template could learn about the minion from: what it reports, or calls on its behalf. */
const MINION_DATA = ['grains', 'pillar', 'salt', 'opts'] as const;

/**
 * Stands in for `name` while the pillar top renders: reading it in any way (a key, a method,
 * iteration, truth, `in`) records the read and throws, so the render stops at that line.
 */
function poisoned(name: string, reads: string[]): object {
  const fail = (): never => {
    reads.push(name);
    throw new Error(`the pillar top file may not read ${name} (pillar_safe_matchers_only)`);
  };
  return new Proxy(
    {},
    { get: fail, has: fail, ownKeys: fail, getOwnPropertyDescriptor: fail, set: fail, defineProperty: fail, deleteProperty: fail, getPrototypeOf: fail },
  );
}

export interface CheckedPillarTop {
  /** BRINE_ERR_MASTER_PILLAR_UNSAFE_MATCHER at each file and line; empty when the tops are safe. */
  diagnostics: Diagnostic[];
  /** Each env's top file as rendered without any minion data: the only rendering to use. */
  tops: Map<string, RenderOutput>;
}

/**
 * With `pillar_safe_matchers_only`, the pillar top files may target minions by id only. Each is
 * rendered with `grains`, `pillar`, `salt` and `opts` that fail when read, so it is the same for
 * every minion, and each target of the parsed data is read by the compiler's own target parser
 * (match items as compileTop reads them, compounds, nodegroups): any engine but glob, pcre and
 * list (grain, grain_pcre, pillar, pillar_pcre, ipcidr) is refused at the target's line. Grains
 * are what the minion says it is, so any of those lets a minion obtain another's secrets.
 */
export function checkPillarTop(snap: TreeSnapshot, nodegroups: Record<string, string | string[]> = {}): CheckedPillarTop {
  const diagnostics: Diagnostic[] = [];
  const tops = new Map<string, RenderOutput>();
  const refuse = (env: string, rel: string, line: number | undefined, what: string) => {
    const file = snap.lookup(env, rel)?.abs ?? `${env}:${rel}`;
    diagnostics.push(masterErrors.diag('BRINE_ERR_MASTER_PILLAR_UNSAFE_MATCHER', { file, line: line ?? '?', what }, { file, line, env }));
  };
  for (const env of snap.tree.envs()) {
    const text = snap.tree.read(env, 'top.sls');
    if (text === undefined) continue;
    const reads: string[] = [];
    const extra = Object.fromEntries(MINION_DATA.map((name) => [name, poisoned(name, reads)]));
    const out = renderSls({ tree: snap.tree, env, path: 'top.sls', text, context: { grains: {}, pillar: {}, params: {}, extra } });
    if (reads.length > 0) {
      // a template that caught the failure still read it: refused all the same
      const at = out.diagnostics.find((d) => d.line !== undefined);
      refuse(env, at?.file ?? 'top.sls', at?.line ?? undefined, `a template reading ${reads[0]}`);
      continue;
    }
    tops.set(env, out);
    for (const [section, tgt, items] of targets(out.high)) {
      const what = unsafeMatcher(tgt, items, nodegroups);
      if (what !== undefined) refuse(env, 'top.sls', out.positions.ids[section]?.states[tgt]?.line, what);
    }
  }
  return { diagnostics, tops };
}

/** Every `[section, target, items]` of a rendered top file, shaped as compileTop reads it. */
function targets(high: unknown): Array<[string, string, unknown[]]> {
  const out: Array<[string, string, unknown[]]> = [];
  if (!isObject(high)) return out;
  for (const [section, body] of Object.entries(high)) {
    if (section === 'include' || !isObject(body)) continue;
    for (const [tgt, list] of Object.entries(body)) {
      if (typeof list === 'string') out.push([section, tgt, [list]]);
      else if (Array.isArray(list)) out.push([section, tgt, list]);
    }
  }
  return out;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** What a target reads besides the id, for the message; undefined when it reads the id alone. */
function unsafeMatcher(tgt: string, items: unknown[], nodegroups: Record<string, string | string[]>): string | undefined {
  const { type } = topTargetType(items);
  if (ID_ONLY.has(type)) return undefined;
  if (type !== 'compound' && type !== 'nodegroup') return `match: ${type}`;
  let engines;
  try {
    engines = targetEngines(tgt, type, { nodegroups });
  } catch {
    // an expression that fails for every minion matches none (compileTop reports it)
    return undefined;
  }
  const bad = engines.find((e) => !ID_ONLY.has(e.type));
  if (!bad) return undefined;
  const engine = LETTER[bad.type] ? `${LETTER[bad.type]}@` : bad.type;
  return bad.via !== undefined ? `${engine} in nodegroup ${bad.via}` : `${engine} in a compound target`;
}
