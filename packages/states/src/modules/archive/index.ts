import type { Availability, StateModule } from '@brine/core';
import { which } from '../../util/which.js';
import { extractedFn } from './extracted.js';

/** Salt's `archive` states. */
export function archiveModule(): StateModule {
  return {
    name: 'archive',
    available(): Availability {
      return which('tar') ? { available: true } : { available: false, reason: 'tar not found' };
    },
    functions: { extracted: extractedFn },
  };
}
