import { existsSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { Command } from '../command.js';
import { cliErrors } from '../errors.js';
import { fromParseError } from '../parse-errors.js';

export const STORE_USAGE = 'brine store migrate [--config MASTER_CONFIG] [--from sqlite:PATH] [--to postgres://USER@HOST:PORT/DB] [--password-file FILE]';

function usage(detail: string): never {
  throw cliErrors.make('BRINE_ERR_CLI_USAGE', { detail, usage: STORE_USAGE });
}

/**
 * `brine store migrate`: carries a master's SQLite store into PostgreSQL, the step from one
 * master to a cluster. By default from the config's data_dir/master.db to the config's `store`.
 * Safe to run again (rows already there are kept); stop the master first, so nothing is written
 * to the SQLite file meanwhile.
 */
export const storeCommand: Command = {
  name: 'store',
  summary: "manage the master's store (migrate a SQLite store into PostgreSQL)",
  usage: STORE_USAGE,
  async run(argv, io) {
    let parsed;
    try {
      parsed = parseArgs({
        args: argv,
        allowPositionals: true,
        strict: true,
        options: { config: { type: 'string', short: 'c' }, from: { type: 'string' }, to: { type: 'string' }, 'password-file': { type: 'string' } },
      });
    } catch (e) {
      throw fromParseError(e, STORE_USAGE);
    }
    const { values, positionals } = parsed;
    if (positionals[0] !== 'migrate' || positionals.length !== 1) usage(positionals.length ? `unknown action '${positionals.join(' ')}'` : 'no action given');
    const { loadMasterConfig, migrateSqliteToPostgres, readStorePassword, redactStoreUrl } = await import('@brine/master');
    const { DEFAULT_MASTER_CONFIG } = await import('@brine/master/client');
    const file = values.config || io.env.BRINE_MASTER_CONFIG || (existsSync(DEFAULT_MASTER_CONFIG) ? DEFAULT_MASTER_CONFIG : undefined);
    const config = file || !values.from || !values.to ? loadMasterConfig(file) : undefined;
    const from = values.from ?? `sqlite:${path.join(config!.data_dir, 'master.db')}`;
    const to = values.to ?? config?.store ?? undefined;
    if (!from.startsWith('sqlite:')) usage(`--from must be sqlite:PATH, not '${from}'`);
    if (!to || !/^postgres(ql)?:\/\//.test(to)) usage(`--to (or the config's store) must be a postgres:// URL${to ? `, not '${to}'` : ''}`);
    const pwFile = values['password-file'] ?? config?.store_password_file ?? undefined;
    const password = pwFile ? readStorePassword(path.resolve(io.cwd, pwFile), to) : io.env.BRINE_STORE_PASSWORD;
    const sqlite = path.resolve(io.cwd, from.slice('sqlite:'.length));
    const counts = await migrateSqliteToPostgres(sqlite, to, password);
    const safe = redactStoreUrl(to);
    io.stdout(`migrated ${sqlite} into ${safe}\n`);
    for (const [table, c] of Object.entries(counts))
      io.stdout(`  ${table.padEnd(14)} ${String(c.read).padStart(8)} read ${String(c.written).padStart(8)} written\n`);
    io.stdout(`Point the masters at it: store: ${safe} (password in store_password_file or BRINE_STORE_PASSWORD).\n`);
    return 0;
  },
};
