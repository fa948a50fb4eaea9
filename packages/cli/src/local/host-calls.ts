import type { AskHost } from '@brine/compiler';
import type { LocalOptions } from './options.js';

/**
 * Under `brine local` the host is the minion: the host calls of the templates (cmd.has_exec,
 * user.info, ...) run here, through the minion's execution functions, as salt-call --local
 * renders on the host it configures. The functions are loaded on the first call.
 */
export function localHost(opts: LocalOptions): AskHost {
  return async (calls) => {
    const [{ createCommandRunner }, { answerHostCalls, bindArgs, EXEC_FUNCTIONS, MINION_VERSION, minionErrors }] = await Promise.all([
      import('@brine/core'),
      import('@brine/minion'),
    ]);
    const functions = new Map(EXEC_FUNCTIONS.map((f) => [f.name, f]));
    const ctx = {
      jid: '',
      grains: opts.grains,
      version: MINION_VERSION,
      signal: new AbortController().signal,
      cmd: createCommandRunner(),
      functions: () => [...functions.keys()].sort(),
      running: () => [],
      kill: () => false,
    };
    return answerHostCalls(calls, async (c) => {
      const fn = functions.get(c.fun);
      if (!fn) throw minionErrors.make('BRINE_ERR_MINION_UNKNOWN_FUNCTION', { fun: c.fun });
      return (await fn.run(bindArgs(fn, c.args, c.kwargs), ctx)).return;
    });
  };
}
