import type { StateModule, StateReturn } from '@brine/core';
import { debconfSet, debconfShow } from '@brine/exec';
import { which } from '../util/which.js';

/**
 * Salt's `debconf.set`: answers preseeded for a package. One deliberate difference: Salt's test
 * mode prints a password answer in clear ("New value: s3cret"); Brine hides it there too.
 */

const pyStr = (v: unknown): string => (v === true ? 'True' : v === false ? 'False' : v === null || v === undefined ? 'None' : String(v));

export function debconfModule(): StateModule {
  return {
    name: 'debconf',
    available() {
      return which('debconf-get-selections') ? { available: true } : { available: false, reason: 'debconf-utils is not installed' };
    },
    functions: {
      set: {
        args: { data: { type: 'dict', required: true } },
        async run(a, ctx) {
          const name = String(a.name);
          const ret: StateReturn = { name, changes: {}, result: true, comment: '' };
          const current = await debconfShow(ctx.cmd, name);
          for (const [key, raw] of Object.entries(a.data as Record<string, Record<string, unknown>>)) {
            const type = String(raw?.type);
            // debconf's booleans are 'true'/'false'; Python's str(True) would be ignored by dpkg-reconfigure
            const value = type === 'boolean' ? (raw?.value ? 'true' : 'false') : pyStr(raw?.value);
            if (current?.some(([q, t, v]) => q === key && t === type && v === value)) {
              if (ret.comment === '') ret.comment = 'Unchanged answers: ';
              ret.comment += `${key} `;
            } else if (ctx.test) {
              ret.result = null;
              ret.changes[key] = `New value: ${type === 'password' ? '(password hidden)' : value}`;
            } else if (await debconfSet(ctx.cmd, name, key, type, value)) {
              ret.changes[key] = type === 'password' ? '(password hidden)' : value;
            } else {
              ret.result = false;
              ret.comment = 'Some settings failed to be applied.';
              ret.changes[key] = 'Failed to set!';
            }
          }
          if (Object.keys(ret.changes).length === 0) ret.comment = 'All specified answers are already set';
          return ret;
        },
      },
    },
  };
}
