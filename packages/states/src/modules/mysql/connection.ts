import type { ArgSpec, StateContext } from '@brine/core';
import { MysqlClient } from '@brine/exec';

/** The `connection_*` arguments every mysql_* state takes (Salt's **connection_args). */
export const CONNECTION_ARGS: Record<string, ArgSpec> = Object.fromEntries(
  ['host', 'user', 'pass', 'port', 'db', 'unix_socket', 'default_file', 'default_group', 'charset', 'conv'].map((k) => [
    `connection_${k}`,
    { type: ['string', 'number'] },
  ]),
);

/** A client for one state call; `mysql.*` options come from the minion's config.option. */
export function mysqlClient(a: Record<string, unknown>, ctx: StateContext): MysqlClient {
  const kwargs: Record<string, unknown> = {};
  for (const k of Object.keys(CONNECTION_ARGS)) if (a[k] !== undefined && a[k] !== null) kwargs[k] = a[k];
  return new MysqlClient(kwargs, async (name) => (ctx.exec ? (await ctx.exec.call('config.option', [name, null], {})).return : undefined));
}

/** Salt's _get_mysql_error: the last error, once. */
export function popError(m: MysqlClient): string | null {
  const e = m.error;
  m.error = null;
  return e;
}
