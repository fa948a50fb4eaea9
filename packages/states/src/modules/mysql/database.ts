import type { StateModule, StateReturn } from '@brine/core';
import { alterDb, dbCreate, dbExists, dbGet, dbRemove, type DbInfo } from '@brine/exec';
import { CONNECTION_ARGS, mysqlClient, popError } from './connection.js';

/** Salt's `mysql_database.present` and `absent`. */
export function mysqlDatabaseModule(): StateModule {
  return {
    name: 'mysql_database',
    available: () => ({ available: true }),
    functions: {
      present: {
        args: { character_set: { type: 'string' }, collate: { type: 'string' }, ...CONNECTION_ARGS },
        async run(a, ctx) {
          const name = String(a.name);
          const cs = a.character_set === undefined || a.character_set === null ? undefined : String(a.character_set);
          const coll = a.collate === undefined || a.collate === null ? undefined : String(a.collate);
          const m = mysqlClient(a, ctx);
          const ret: StateReturn = { name, changes: {}, result: true, comment: `Database ${name} is already present` };
          const existing = (await dbGet(m, name)) as Partial<DbInfo>;
          if (Object.keys(existing).length) {
            let alterCharset = false;
            let alterCollate = false;
            if (cs && cs !== String(existing.character_set)) {
              alterCharset = true;
              ret.comment = `Database character set ${cs} != ${String(existing.character_set)} needs to be updated`;
              if (ctx.test) ret.result = null;
            }
            if (coll && coll !== String(existing.collate)) {
              alterCollate = true;
              ret.comment += `\nDatabase collate ${coll} != ${String(existing.collate)} needs to be updated`;
              if (ctx.test) {
                ret.result = null;
                return ret;
              }
            }
            if (alterCharset || alterCollate) {
              if (ctx.test) ret.comment += `\nDatabase ${name} is going to be updated`;
              else await alterDb(m, name, cs, coll);
            }
            const current = (await dbGet(m, name)) as Partial<DbInfo>;
            if (existing.collate !== current.collate) ret.changes.collate = { before: existing.collate ?? null, now: current.collate ?? null };
            if (existing.character_set !== current.character_set)
              ret.changes.character_set = { before: existing.character_set ?? null, now: current.character_set ?? null };
            return ret;
          }
          const err = popError(m);
          if (err !== null) return { ...ret, comment: err, result: false };
          if (ctx.test) return { ...ret, result: null, comment: `Database ${name} is not present and needs to be created` };
          if (await dbCreate(m, name, cs, coll)) return { ...ret, comment: `The database ${name} has been created`, changes: { [name]: 'Present' } };
          const e2 = popError(m);
          return { ...ret, result: false, comment: `Failed to create database ${name}${e2 !== null ? ` (${e2})` : ''}` };
        },
      },
      absent: {
        args: { ...CONNECTION_ARGS },
        async run(a, ctx) {
          const name = String(a.name);
          const m = mysqlClient(a, ctx);
          const ret: StateReturn = { name, changes: {}, result: true, comment: '' };
          if (await dbExists(m, name)) {
            if (ctx.test) return { ...ret, result: null, comment: `Database ${name} is present and needs to be removed` };
            if (await dbRemove(m, name)) return { ...ret, comment: `Database ${name} has been removed`, changes: { [name]: 'Absent' } };
            const err = popError(m);
            if (err !== null) return { ...ret, result: false, comment: `Unable to remove database ${name} (${err})` };
          } else {
            const err = popError(m);
            if (err !== null) return { ...ret, result: false, comment: err };
          }
          return { ...ret, comment: `Database ${name} is not present, so it cannot be removed` };
        },
      },
    },
  };
}
