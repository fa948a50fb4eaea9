import type { MjsRenderResult } from '@brine/core';
import type { AskHost, HostAnswer, HostCall } from './host-rounds.js';
import { MJS_RENDER_CALL } from './render/render-sls.js';

/** Runs one `#!mjs` module with its context (core's renderMjs, confined), or says why it may not. */
export type MjsRenderer = ((source: string, context: unknown) => Promise<MjsRenderResult>) | { refused: string };

/**
 * The `#!mjs` renders among a compile's host calls are answered here, by `render`, and never
 * asked of the host behind `ask` (a minion never sees a tree author's module or is asked to run
 * it); the other calls go to `ask` as before.
 */
export function askWithMjs(ask: AskHost | undefined, render: MjsRenderer): AskHost {
  return async (calls: HostCall[]) => {
    const mine: number[] = [];
    const rest: number[] = [];
    calls.forEach((c, i) => (c.fun === MJS_RENDER_CALL ? mine : rest).push(i));
    const out = new Array<HostAnswer>(calls.length);
    const [rendered, asked] = await Promise.all([
      Promise.all(mine.map((i) => renderOne(calls[i]!, render))),
      rest.length === 0 ? [] : ask ? ask(rest.map((i) => calls[i]!)) : Promise.reject(new Error('no host to ask')),
    ]);
    mine.forEach((i, k) => (out[i] = rendered[k]!));
    rest.forEach((i, k) => (out[i] = (asked as HostAnswer[])[k]!));
    return out;
  };
}

async function renderOne(call: HostCall, render: MjsRenderer): Promise<HostAnswer> {
  if ('refused' in render) return { ok: false, code: 'BRINE_ERR_COMPILE_MJS', message: render.refused };
  const [, source, context] = call.args;
  if (typeof source !== 'string') return { ok: false, code: 'BRINE_ERR_COMPILE_MJS', message: 'no module source' };
  const r = await render(source, context);
  return r.ok ? { ok: true, value: r.value } : { ok: false, code: 'BRINE_ERR_COMPILE_MJS', message: r.message };
}
