import { readFileSync } from 'node:fs';
import { masterErrors } from './errors.js';
import { SqliteBackend } from './store-sqlite.js';
import type { StoreBackend } from './store-backend.js';

export interface StoreSpec {
  /** `sqlite:PATH` or `postgres://USER@HOST:PORT/DB` (never with a password in it). */
  url: string;
  /** A file holding the PostgreSQL password (`store_password_file`); else BRINE_STORE_PASSWORD. */
  passwordFile?: string;
}

/**
 * Opens the store a URL names. The password never travels in the URL (config files get copied and
 * URLs get logged): it comes from a file or the environment.
 */
export async function openStore(spec: StoreSpec, env: NodeJS.ProcessEnv = process.env): Promise<StoreBackend> {
  const { url } = spec;
  if (url.startsWith('sqlite:')) return SqliteBackend.open(url.slice('sqlite:'.length));
  if (/^postgres(ql)?:\/\//.test(url)) {
    if (/^postgres(ql)?:\/\/[^/@]*:[^/@]*@/.test(url)) {
      throw masterErrors.make('BRINE_ERR_MASTER_STORE_URL', {
        url: url.replace(/:[^:@/]*@/, ':***@'),
        detail: 'a password in the URL; put it in store_password_file or BRINE_STORE_PASSWORD',
      });
    }
    let password = env.BRINE_STORE_PASSWORD;
    if (spec.passwordFile) {
      try {
        password = readFileSync(spec.passwordFile, 'utf8').replace(/\r?\n$/, '');
      } catch (err) {
        throw masterErrors.make('BRINE_ERR_MASTER_STORE_URL', { url, detail: `store_password_file ${spec.passwordFile}: ${(err as Error).message}` });
      }
    }
    // pg is loaded only for a PostgreSQL store: a SQLite master never pays for it
    const { PgStore } = await import('./store-pg.js');
    return PgStore.open(url, password);
  }
  throw masterErrors.make('BRINE_ERR_MASTER_STORE_URL', { url, detail: 'expected sqlite:PATH or postgres://USER@HOST:PORT/DATABASE' });
}
