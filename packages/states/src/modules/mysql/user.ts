import type { StateContext, StateModule, StateReturn } from '@brine/core';
import { userChpass, userCreate, userExists, userRemove } from '@brine/exec';
import { CONNECTION_ARGS, mysqlClient, popError } from './connection.js';

/** Salt's `mysql_user.present` and `absent`. */

const isTrue = (v: unknown) => v === true || v === 1 || (typeof v === 'string' && ['true', 'yes', '1', 'on'].includes(v.toLowerCase()));
const optStr = (v: unknown) => (v === undefined || v === null || v === '' ? undefined : String(v));

export function mysqlUserModule(): StateModule {
  return {
    name: 'mysql_user',
    available: () => ({ available: true }),
    functions: {
      present: {
        args: {
          host: { type: 'string' },
          password: { type: ['string', 'number'] },
          password_hash: { type: 'string' },
          allow_passwordless: { type: ['boolean', 'string'] },
          unix_socket: { type: ['boolean', 'string'] },
          password_column: { type: 'string' },
          auth_plugin: { type: 'string' },
          ...CONNECTION_ARGS,
        },
        run: present,
      },
      absent: {
        args: { host: { type: 'string' }, ...CONNECTION_ARGS },
        run: absent,
      },
    },
  };
}

async function present(a: Record<string, unknown>, ctx: StateContext): Promise<StateReturn> {
  const name = String(a.name);
  const host = a.host === undefined ? 'localhost' : String(a.host);
  const password = optStr(a.password);
  const passwordHash = optStr(a.password_hash);
  const allowPasswordless = isTrue(a.allow_passwordless);
  const unixSocket = isTrue(a.unix_socket);
  const passwordColumn = optStr(a.password_column);
  const authPlugin = a.auth_plugin === undefined ? 'mysql_native_password' : String(a.auth_plugin);
  const m = mysqlClient(a, ctx);
  const ret: StateReturn = { name, changes: {}, result: true, comment: `User ${name}@${host} is already present` };
  const passwordless = !password && !passwordHash;
  if (passwordless) {
    if (!allowPasswordless && !unixSocket) {
      return { ...ret, result: false, comment: 'Either password or password_hash must be specified, unless allow_passwordless is True' };
    }
    if (await userExists(m, name, host, { passwordless: true, unixSocket, passwordColumn })) {
      if (allowPasswordless) ret.comment += ' with passwordless login';
      return ret;
    }
  } else if (await userExists(m, name, host, { password, passwordHash, unixSocket, passwordColumn })) {
    if (authPlugin === 'mysql_native_password') {
      ret.comment += ' with the desired password';
      if (passwordHash && !password) ret.comment += ' hash';
    } else ret.comment += '. Unable to verify password.';
    return ret;
  }
  const err = popError(m);
  if (err !== null) return { ...ret, result: false, comment: err };
  if (await userExists(m, name, host, { unixSocket })) {
    if (ctx.test) {
      let comment = `Password for user ${name}@${host} is set to be `;
      let result: boolean | null = null;
      if (passwordless) {
        comment += 'cleared';
        if (!allowPasswordless) {
          comment += ', but allow_passwordless != True';
          result = false;
        }
      } else comment += 'changed';
      return { ...ret, result, comment };
    }
    if (await userChpass(m, name, host, { password, passwordHash, allowPasswordless, unixSocket })) {
      return { ...ret, comment: `Password for user ${name}@${host} has been ${passwordless ? 'cleared' : 'changed'}`, changes: { [name]: 'Updated' } };
    }
    let comment = `Failed to ${passwordless ? 'clear' : 'change'} password for user ${name}@${host}`;
    const e2 = popError(m);
    if (e2 !== null) comment += ` (${e2})`;
    if (passwordless && !allowPasswordless) comment += '. Note: allow_passwordless must be True to permit passwordless login.';
    return { ...ret, result: false, comment };
  }
  const e3 = popError(m);
  if (e3 !== null) return { ...ret, result: false, comment: e3 };
  if (ctx.test) {
    let comment = `User ${name}@${host} is set to be added`;
    if (allowPasswordless) comment += ' with passwordless login';
    if (unixSocket) comment += ' using unix_socket';
    return { ...ret, result: null, comment };
  }
  if (await userCreate(m, name, host, { password, passwordHash, allowPasswordless, unixSocket, passwordColumn, authPlugin })) {
    let comment = `The user ${name}@${host} has been added`;
    if (allowPasswordless) comment += ' with passwordless login';
    if (unixSocket) comment += ' using unix_socket';
    return { ...ret, comment, changes: { [name]: 'Present' } };
  }
  const e4 = popError(m);
  return { ...ret, result: false, comment: `Failed to create user ${name}@${host}${e4 !== null ? ` (${e4})` : ''}` };
}

async function absent(a: Record<string, unknown>, ctx: StateContext): Promise<StateReturn> {
  const name = String(a.name);
  const host = a.host === undefined ? 'localhost' : String(a.host);
  const m = mysqlClient(a, ctx);
  const ret: StateReturn = { name, changes: {}, result: true, comment: '' };
  if (await userExists(m, name, host)) {
    if (ctx.test) return { ...ret, result: null, comment: `User ${name}@${host} is set to be removed` };
    if (await userRemove(m, name, host)) return { ...ret, comment: `User ${name}@${host} has been removed`, changes: { [name]: 'Absent' } };
    const err = popError(m);
    if (err !== null) return { ...ret, result: false, comment: err };
  } else {
    const err = popError(m);
    if (err !== null) return { ...ret, result: false, comment: err };
  }
  return { ...ret, comment: `User ${name}@${host} is not present, so it cannot be removed` };
}
