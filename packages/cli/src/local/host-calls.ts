import type { AskHost } from '@brine/compiler';
import { localContext, localExec } from './exec.js';
import type { LocalOptions } from './options.js';

/**
 * Under `brine local` the host is the minion: the host calls of the templates (cmd.has_exec,
 * user.info, ...) run here, through the execution functions of @brine/exec, as salt-call
 * --local renders on the host it configures. The functions are loaded on the first call.
 */
export function localHost(opts: LocalOptions): AskHost {
  return async (calls) => {
    const [{ exec, registry }, { answerHostCalls }] = await Promise.all([localExec(), import('@brine/minion')]);
    const ctx = await localContext(opts);
    return answerHostCalls(calls, (c) => exec.callExec(registry, c.fun, c.args, c.kwargs, ctx));
  };
}
