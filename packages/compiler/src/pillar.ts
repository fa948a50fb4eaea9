import { createRequire } from 'node:module';
import { copyKeyOrder, isDict, keysOf, setKey, type Diagnostic, type Grains, type Pillar } from '@brine/core';
import { compilerErrors } from './errors.js';
import { globMatch } from './glob.js';
import { compileTopFiles } from './pipeline.js';
import { renderSls } from './render/index.js';
import type { RenderContext, RenderInput, RenderOutput } from './render/types.js';
import { readSls, slsIndex, type StateTree } from './state-tree.js';
import type { HostCallRecord } from './host-rounds.js';

// node:util by require: imported as an ES module it loads about 15 more of Node's own modules
// (worker threads among them), a few ms at the start of every compile
const { isDeepStrictEqual } = createRequire(import.meta.url)('node:util') as typeof import('node:util');

/**
 * Classic pillar, the way Salt's master builds it for one minion; the master and `brine local`
 * both call this, each with its own tree of pillar roots.
 */

/**
 * Salt's pillar merge ("smart" strategy with the yaml renderer): dictionaries merge key by key,
 * recursively; anything else is replaced by the later value, except that with `mergeLists` a
 * list extends the earlier list with the items it does not hold yet.
 */
export function mergePillar(dest: Record<string, unknown>, src: Record<string, unknown>, mergeLists = false): Record<string, unknown> {
  for (const k of keysOf(src)) {
    const v = src[k];
    const cur = Object.hasOwn(dest, k) ? dest[k] : undefined;
    if (isDict(cur) && isDict(v)) setKey(dest, k, mergePillar(shallowCopy(cur), v, mergeLists));
    else if (mergeLists && Array.isArray(cur) && Array.isArray(v)) setKey(dest, k, [...cur, ...v.filter((x) => !cur.some((c) => isDeepStrictEqual(c, x)))]);
    else setKey(dest, k, isDict(v) ? mergePillar({}, v, mergeLists) : v);
  }
  return dest;
}

/** Salt's `pillar_source_merging_strategy` values Brine takes (`smart` is `recurse` with the yaml renderer). */
export const PILLAR_MERGE_STRATEGIES = ['smart', 'recurse', 'aggregate', 'overwrite', 'none'] as const;
export type PillarMergeStrategy = (typeof PILLAR_MERGE_STRATEGIES)[number];

/**
 * Merges `src` into `dest` (changed in place) as Salt's `salt.utils.dictupdate.merge` does with
 * `pillar_source_merging_strategy`: smart and recurse as mergePillar; none as recurse without
 * merging lists; overwrite replaces `dest`'s top-level values whole, and so does aggregate on
 * data without yamlex's `!aggregate` tags (YAML, JSON and SQL sources carry none).
 */
export function mergePillarBy(
  dest: Record<string, unknown>,
  src: Record<string, unknown>,
  strategy: PillarMergeStrategy = 'smart',
  mergeLists = false,
): Record<string, unknown> {
  if (strategy === 'smart' || strategy === 'recurse') return mergePillar(dest, src, mergeLists);
  if (strategy === 'none') return mergePillar(dest, src, false);
  for (const k of keysOf(src)) {
    const v = src[k];
    setKey(dest, k, isDict(v) ? mergePillar({}, v, false) : v);
  }
  return dest;
}

function shallowCopy(d: Record<string, unknown>): Record<string, unknown> {
  const out = { ...d };
  copyKeyOrder(d, out);
  return out;
}

export interface PillarOptions {
  mergeLists?: boolean;
  /** How the pillar SLS files merge (Salt's pillar_source_merging_strategy; smart by default). */
  strategy?: PillarMergeStrategy;
  /** Pillar the templates see beneath what the files merged so far (the ext_pillar's, with Salt's ext_pillar_first). */
  seen?: Record<string, unknown>;
  nodegroups?: Record<string, string | string[]>;
  /** Only this pillar environment (Salt's `pillarenv`). */
  pillarenv?: string;
  /** Defaults to renderSls (Jinja then YAML). */
  render?: (input: RenderInput) => RenderOutput;
  /** Template context beyond grains and pillar (salt helpers, extra variables). */
  context?: Partial<RenderContext>;
}

export interface PillarResult {
  pillar: Pillar;
  diagnostics: Diagnostic[];
  /** The host calls its templates made (with `context.hostAnswers`, answered or not): the master answers mine.get. */
  hostCalls?: HostCallRecord[];
  /** The PGP blocks files rendered through the gpg renderer hold, with their file: the master decrypts these (only). */
  gpg?: Array<[block: string, file: string]>;
}

/**
 * The pillar top file picks SLS names per environment (globs are matched against the env's SLS
 * files, as Salt does with fnmatch); each is rendered with the minion's grains and the pillar
 * merged so far; an `include:` list (names, globs, `.relative` names, or `{name: {defaults:
 * {...}, key: 'a:b'}}`) is rendered first and the including file merged over what it included.
 */
export function compilePillar(tree: StateTree, minion: { id: string; grains: Grains }, opts: PillarOptions = {}): PillarResult {
  const diagnostics: Diagnostic[] = [];
  const { hostCalls, gpg } = { hostCalls: [] as HostCallRecord[], gpg: new Map<string, string>() };
  const pillar: Record<string, unknown> = {};
  if (tree.envs().length === 0) return { pillar, diagnostics };
  const render = opts.render ?? renderSls;
  const top = compileTopFiles({
    tree,
    minion,
    pillar: {},
    render,
    ...(opts.pillarenv ? { saltenv: opts.pillarenv } : {}),
    ...(opts.nodegroups ? { nodegroups: opts.nodegroups } : {}),
  });
  diagnostics.push(...top.diagnostics);
  const merge = (a: Record<string, unknown>, b: Record<string, unknown>) => mergePillarBy(a, b, opts.strategy, opts.mergeLists);

  for (const [env, list] of Object.entries(top.matches)) {
    const avail = [...slsIndex(tree, env).keys()];
    const expand = (pattern: string) => {
      const hits = avail.filter((s) => globMatch(s, pattern));
      return hits.length > 0 ? hits : [pattern];
    };
    // Each file is rendered once per environment; a second include of it reuses the result.
    const mods = new Map<string, Record<string, unknown> | undefined>();
    const renderOne = (sls: string, defaults: Record<string, unknown>, from?: string): Record<string, unknown> | undefined => {
      const file = readSls(tree, env, sls);
      if (!file) {
        diagnostics.push(
          compilerErrors.diag(
            'BRINE_ERR_COMPILE_PILLAR_MISSING',
            { sls, env, from: from ? ` (included from '${from}')` : '' },
            { env, sls, file: from ? `${from.split('.').join('/')}.sls` : 'top.sls' },
          ),
        );
        mods.set(sls, undefined);
        return undefined;
      }
      const out = render({
        tree,
        env,
        sls,
        path: file.path,
        text: file.text,
        context: { ...pillarContext(opts, minion, opts.seen ? mergePillar(mergePillar({}, opts.seen), pillar, opts.mergeLists) : pillar, defaults), gpg },
      });
      diagnostics.push(...out.diagnostics.map((d) => ({ ...d, message: `pillar: ${d.message}` })));
      if (out.hostCalls) hostCalls.push(...out.hostCalls);
      if (out.high !== undefined && out.high !== null && !isDict(out.high)) {
        diagnostics.push(
          compilerErrors.diag(
            'BRINE_ERR_COMPILE_NOT_A_DICT',
            { sls, got: Array.isArray(out.high) ? 'a list' : typeof out.high },
            { env, sls, file: file.path },
          ),
        );
        mods.set(sls, undefined);
        return undefined;
      }
      let data = { ...((out.high ?? {}) as Record<string, unknown>) };
      mods.set(sls, data);
      if ('include' in data) {
        const include = data.include;
        delete data.include;
        if (!Array.isArray(include)) {
          diagnostics.push(
            compilerErrors.diag(
              'BRINE_ERR_COMPILE_BAD_INCLUDE',
              { sls, got: Array.isArray(include) ? 'a list' : typeof include },
              { env, sls, file: file.path },
            ),
          );
        } else {
          const parts: Record<string, unknown>[] = [];
          for (const item of include) {
            const target = includeTarget(item, avail, file.path, sls);
            if (!target) continue;
            const { names, subDefaults, key } = target;
            for (const sub of names) {
              let nstate = mods.has(sub) ? mods.get(sub) : renderOne(sub, subDefaults, sls);
              if (!nstate) continue;
              if (key) for (const fragment of key.split(':').reverse()) nstate = { [fragment]: nstate };
              parts.push(nstate);
            }
          }
          parts.push(data);
          data = parts.reduce((acc, p) => merge(acc, p), {} as Record<string, unknown>);
        }
      }
      return data;
    };
    for (const pattern of list) {
      for (const sls of expand(pattern)) {
        const data = renderOne(sls, {});
        if (data) merge(pillar, data);
      }
    }
  }
  return { pillar, diagnostics, ...(hostCalls.length > 0 ? { hostCalls } : {}), ...(gpg.size > 0 ? { gpg: [...gpg] } : {}) };
}

/** The SLS names an `include:` item names (globs and `.relative` names resolved), with its defaults and key. */
function includeTarget(
  item: unknown,
  avail: string[],
  path: string,
  sls: string,
): { names: string[]; subDefaults: Record<string, unknown>; key: string | undefined } | undefined {
  let name: unknown = item;
  let subDefaults: Record<string, unknown> = {};
  let key: string | undefined;
  if (isDict(item)) {
    const [first] = Object.entries(item);
    if (!first) return undefined;
    name = first[0];
    const spec = isDict(first[1]) ? first[1] : {};
    if (isDict(spec.defaults)) subDefaults = spec.defaults;
    if (typeof spec.key === 'string') key = spec.key;
  }
  if (typeof name !== 'string') return undefined;
  let names = avail.filter((s) => globMatch(s, name.replace(/^\.+/, '').split('/').join('.')));
  if (name.startsWith('.')) {
    const pkg = path.endsWith('/init.sls') ? sls.split('.') : sls.split('.').slice(0, -1);
    const rel = [...pkg, name.slice(1)].join('.');
    names = [...names, ...avail.filter((s) => globMatch(s, rel))];
    if (names.length === 0) names = [rel];
  }
  if (names.length === 0) names = [name];
  return { names, subDefaults, key };
}

/** A pillar file's template context: the minion's grains, the pillar so far, an include's defaults. */
function pillarContext(
  opts: PillarOptions,
  minion: { id: string; grains: Grains },
  pillar: Record<string, unknown>,
  defaults: Record<string, unknown>,
): RenderContext {
  return {
    ...opts.context,
    grains: minion.grains,
    pillar,
    params: {},
    opts: { id: minion.id },
    ...(Object.keys(defaults).length > 0 ? { extra: { ...opts.context?.extra, ...defaults } } : {}),
  };
}
