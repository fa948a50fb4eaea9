import { masterErrors } from './errors.js';
import { readStorePassword, redactStoreUrl, refuseStorePassword } from './store-location.js';
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
    refuseStorePassword(url);
    const password = spec.passwordFile ? readStorePassword(spec.passwordFile, url) : env.BRINE_STORE_PASSWORD;
    // pg is loaded only for a PostgreSQL store: a SQLite master never pays for it
    const { PgStore } = await import('./store-pg.js');
    return PgStore.open(url, password);
  }
  throw masterErrors.make('BRINE_ERR_MASTER_STORE_URL', { url: redactStoreUrl(url), detail: 'expected sqlite:PATH or postgres://USER@HOST:PORT/DATABASE' });
}
