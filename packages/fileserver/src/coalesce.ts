/**
 * `run` one at a time: a call while one runs gets the run after it (so it sees what happened
 * before the call, a push say), and every call meanwhile shares that same next run.
 */
export function coalesced<T>(run: () => Promise<T>): () => Promise<T> {
  let running: Promise<T> | undefined;
  let queued: Promise<T> | undefined;
  const start = (): Promise<T> => {
    const p = run().finally(() => {
      if (running === p) running = undefined;
    });
    running = p;
    return p;
  };
  const next = () => {
    queued = undefined;
    return running ?? start();
  };
  return () => {
    if (!running) return start();
    queued ??= running.then(next, next);
    return queued;
  };
}
