/**
 * Renders kept across the rounds of host calls (compileAsking). Between two rounds only the
 * host answers change, so a render that neither asked nor read an answer (its templates and
 * their imports made no host call: the render reports none) renders the same again: the next
 * round takes its output as it was. A render with a host call is rendered anew every round.
 *
 * The rounds of one compile share the answers table (the same Map, added to): that is the key.
 * Anything else a render sees (tree, render function, grains, pillar, params, helpers) must be
 * the very same objects as in the round that kept the outputs, or nothing is reused: a pillar
 * compiled again for the round (pillar templates that asked) renders every file, tops included.
 */
import { copyKeyOrder, keysOf } from '@brine/core';
import type { HostAnswers } from '@brine/jinja';
import type { RenderInput, RenderOutput } from './render/types.js';

/** What of a compile's options a render's output depends on (pipeline.ts's CompileOptions has them). */
interface ReuseOptions {
  tree: unknown;
  render?: unknown;
  minion: { id: string; grains: unknown };
  pillar?: unknown;
  params?: unknown;
  salt?: unknown;
  extra?: unknown;
  hostAnswers?: HostAnswers;
}

type Render = (input: RenderInput) => RenderOutput;

interface Kept {
  /** What the renders saw, compared by identity. */
  seen: unknown[];
  outputs: Map<string, { text: string; out: RenderOutput }>;
}

const byAnswers = new WeakMap<HostAnswers, Kept>();
/** Jinja in a file (render-sls's test): the renders worth keeping. */
const TEMPLATED = /\{[{%#]/;

/** What the renders of a compile see, compared by identity (defaults made per compile count as other). */
function seenBy(opts: ReuseOptions): unknown[] {
  return [opts.tree, opts.render, opts.minion.id, opts.minion.grains, opts.pillar, opts.params, opts.salt, opts.extra];
}

/**
 * Plain data copied (the compile changes the high data it gets: includes taken out, declarations
 * standardised, orders added), prototypes and key order kept.
 */
function copy(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(copy);
  if (v === null || typeof v !== 'object') return v;
  const proto = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) return v;
  const out: Record<string, unknown> = proto === null ? Object.create(null) : {};
  for (const k of keysOf(v)) {
    const val = copy((v as Record<string, unknown>)[k]);
    if (k === '__proto__') Object.defineProperty(out, k, { value: val, enumerable: true, writable: true, configurable: true });
    else out[k] = val;
  }
  copyKeyOrder(v, out);
  return out;
}

function copyOutput(out: RenderOutput): RenderOutput {
  const c: RenderOutput = { ...out, high: copy(out.high) as RenderOutput['high'], diagnostics: [...out.diagnostics] };
  if (out.keyOrder) c.keyOrder = [...out.keyOrder];
  return c;
}

/** `render` for one compile of a round: the outputs kept by the round before are reused (see the file comment). */
export function reusingRenders(opts: ReuseOptions, render: Render): Render {
  const answers = opts.hostAnswers;
  if (!answers) return render;
  const seen = seenBy(opts);
  let kept = byAnswers.get(answers);
  if (!kept || kept.seen.length !== seen.length || kept.seen.some((s, i) => s !== seen[i])) {
    kept = { seen, outputs: new Map() };
    byAnswers.set(answers, kept);
  }
  const outputs = kept.outputs;
  return (input) => {
    // only the recorder reads `speculative`: a render without host calls is the same either way
    const key = `${input.env}\0${input.path}\0${input.sls ?? '\u0001'}`;
    const had = outputs.get(key);
    if (had && had.text === input.text) return copyOutput(had.out);
    const out = render(input);
    // a file without Jinja parses again for about what keeping a copy costs (trees of plain YAML
    // have no host calls: they would pay the copy for nothing)
    if (out.hostCalls === undefined && TEMPLATED.test(input.text)) outputs.set(key, { text: input.text, out: copyOutput(out) });
    else outputs.delete(key);
    return out;
  };
}
