import { askWithMjs, type AskHost } from '@brine/compiler';
import { renderMjs } from '@brine/core';

/** Salt's and the master's default render_timeout. */
const RENDER_TIMEOUT_MS = 30_000;
import { localContext, localExec } from './exec.js';
import type { LocalOptions } from './options.js';

/**
 * Under `brine local` the host is the minion: the host calls of the templates (cmd.has_exec,
 * user.info, ...) run here, through the execution functions of @brine/exec, as salt-call
 * --local renders on the host it configures. The functions are loaded on the first call.
 */
export function localHost(opts: LocalOptions): AskHost {
  const host: AskHost = async (calls) => {
    const [{ exec, registry }, { answerHostCalls }] = await Promise.all([localExec(), import('@brine/minion/host-calls')]);
    const ctx = await localContext(opts);
    return answerHostCalls(calls, (c) => exec.callExec(registry, c.fun, c.args, c.kwargs, ctx));
  };
  // the tree is the operator's own here (as salt-call --local runs #!py): its #!mjs modules
  // render, each in a confined process, as on a master with mjs_renderer
  return askWithMjs(host, (source, context) => renderMjs(source, context, { timeoutMs: RENDER_TIMEOUT_MS }));
}
