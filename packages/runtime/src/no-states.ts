import type { Matches, RunningDict } from '@brine/core';

/** True when a highstate has nothing to run: no top file entry and no master_tops data matched. */
export function nothingMatched(matches: Matches | undefined): boolean {
  return !matches || Object.values(matches).every((sls) => sls.length === 0);
}

/**
 * Salt's answer to a highstate with no matches: one failed entry (not an empty, successful run),
 * so an empty or missing tree is never mistaken for a converged host.
 */
export function noStatesRunning(): RunningDict {
  return {
    'no_|-states_|-states_|-None': {
      result: false,
      comment: 'No Top file or master_tops data matches found. Please see master log for details.',
      name: 'No States',
      changes: {},
      __run_num__: 0,
    },
  } as unknown as RunningDict;
}
