import type { StateModule, StateReturn } from '@brine/core';
import { grantAdd, grantExists, grantRevoke, revokeGrantsOn, type GrantSpec } from '@brine/exec';
import { CONNECTION_ARGS, mysqlClient, popError } from './connection.js';

/** Salt's `mysql_grants.present` and `absent`. */

const isTrue = (v: unknown) => v === true || v === 1 || (typeof v === 'string' && ['true', 'yes', '1', 'on'].includes(v.toLowerCase()));

const GRANT_ARGS = {
  grant: { type: 'string' as const },
  database: { type: 'string' as const },
  user: { type: 'string' as const },
  host: { type: 'string' as const },
  grant_option: { type: ['boolean' as const, 'string' as const] },
  escape: { type: ['boolean' as const, 'string' as const] },
};

function spec(a: Record<string, unknown>): GrantSpec {
  return {
    grant: String(a.grant ?? 'None'),
    database: String(a.database ?? 'None'),
    user: String(a.user ?? 'None'),
    host: a.host === undefined ? 'localhost' : String(a.host),
    grantOption: isTrue(a.grant_option),
    escape: a.escape === undefined ? true : isTrue(a.escape),
    sslOption: Array.isArray(a.ssl_option) ? (a.ssl_option as Array<Record<string, unknown>>) : false,
  };
}

export function mysqlGrantsModule(): StateModule {
  return {
    name: 'mysql_grants',
    available: () => ({ available: true }),
    functions: {
      present: {
        args: { ...GRANT_ARGS, revoke_first: { type: ['boolean', 'string'] }, ssl_option: { type: ['list', 'boolean'] }, ...CONNECTION_ARGS },
        async run(a, ctx) {
          const name = String(a.name);
          const s = spec(a);
          const m = mysqlClient(a, ctx);
          const ret: StateReturn = { name, changes: {}, result: true, comment: `Grant ${s.grant} on ${s.database} to ${s.user}@${s.host} is already present` };
          if (await grantExists(m, s)) return ret;
          const err = popError(m);
          if (err !== null) return { ...ret, result: false, comment: err };
          if (isTrue(a.revoke_first) && !ctx.test) await revokeGrantsOn(m, s);
          if (ctx.test) return { ...ret, result: null, comment: `MySQL grant ${name} is set to be created` };
          if (await grantAdd(m, s))
            return { ...ret, comment: `Grant ${s.grant} on ${s.database} to ${s.user}@${s.host} has been added`, changes: { [name]: 'Present' } };
          const e2 = popError(m);
          return {
            ...ret,
            result: false,
            comment: `Failed to execute: "GRANT ${s.grant} ON ${s.database} TO ${s.user}@${s.host}"${e2 !== null ? ` (${e2})` : ''}`,
          };
        },
      },
      absent: {
        args: { ...GRANT_ARGS, ...CONNECTION_ARGS },
        async run(a, ctx) {
          const name = String(a.name);
          const s = spec(a);
          const m = mysqlClient(a, ctx);
          const ret: StateReturn = { name, changes: {}, result: true, comment: '' };
          if (await grantExists(m, s)) {
            if (ctx.test) return { ...ret, result: null, comment: `MySQL grant ${name} is set to be revoked` };
            if (await grantRevoke(m, s))
              return { ...ret, comment: `Grant ${s.grant} on ${s.database} for ${s.user}@${s.host} has been revoked`, changes: { [name]: 'Absent' } };
            const err = popError(m);
            if (err !== null) return { ...ret, result: false, comment: `Unable to revoke grant ${s.grant} on ${s.database} for ${s.user}@${s.host} (${err})` };
          } else {
            const err = popError(m);
            if (err !== null)
              return { ...ret, result: false, comment: `Unable to determine if grant ${s.grant} on ${s.database} for ${s.user}@${s.host} exists (${err})` };
          }
          return { ...ret, comment: `Grant ${s.grant} on ${s.database} to ${s.user}@${s.host} is not present, so it cannot be revoked` };
        },
      },
    },
  };
}
