/**
 * Counts the event loop's turns from now until `stop()`: `count` is how many have begun, so work
 * noted with it says which turn it ran in (a test that a long task gives the loop turns).
 */
export function countTurns(): { readonly count: number; stop(): void } {
  let count = 0;
  let on = true;
  const tick = (): void => {
    count++;
    if (on) setImmediate(tick);
  };
  setImmediate(tick);
  return {
    get count() {
      return count;
    },
    stop() {
      on = false;
    },
  };
}
