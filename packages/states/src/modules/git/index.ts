import type { Availability, StateModule } from '@brine/core';
import { which } from '../../util/which.js';
import { configSetFn, configUnsetFn } from './config.js';
import { latestFn } from './latest.js';

/** Salt's `git` states through the git CLI. */
export function gitModule(): StateModule {
  return {
    name: 'git',
    available(): Availability {
      return which('git') ? { available: true } : { available: false, reason: 'git not found' };
    },
    functions: {
      latest: latestFn,
      config_set: configSetFn,
      config_unset: configUnsetFn,
    },
  };
}
