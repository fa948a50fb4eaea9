import { readFileSync, statSync } from 'node:fs';
import { masterErrors } from './errors.js';

const PG_URL = /^postgres(ql)?:\/\//;

/**
 * A store location as it may be logged or shown: `postgres://USER@HOST:PORT/DB` and nothing
 * else (no password, no query parameters: libpq takes `password=`, `sslpassword=`, ...).
 * `sqlite:PATH` is shown as it is.
 */
export function redactStoreUrl(url: string): string {
  if (!PG_URL.test(url)) return url;
  try {
    const u = new URL(url);
    const user = u.username ? `${u.username}@` : '';
    return `${u.protocol}//${user}${u.host}${u.pathname === '/' ? '' : u.pathname}`;
  } catch {
    return `${url.slice(0, url.indexOf('//') + 2)}(not a URL)`;
  }
}

/**
 * The password never travels in the store URL (config files get copied, URLs get logged): a
 * `USER:PASSWORD@` or a `password=` parameter is refused, naming where it should go instead.
 */
export function refuseStorePassword(url: string, where = ''): void {
  if (!PG_URL.test(url)) return;
  let inUrl: boolean;
  try {
    const u = new URL(url);
    inUrl = u.password !== '' || [...u.searchParams.keys()].some((k) => /password/i.test(k));
  } catch {
    inUrl = /:[^/@]*@|password/i.test(url);
  }
  if (inUrl) {
    throw masterErrors.make('BRINE_ERR_MASTER_STORE_URL', {
      url: redactStoreUrl(url),
      detail: `a password in the URL${where}; remove it and put the password in the file store_password_file names (mode 0600), or in the environment variable BRINE_STORE_PASSWORD`,
    });
  }
}

/**
 * Reads `store_password_file`. A file others may write is refused: whoever can write it can point
 * the master at a database of their choosing with credentials they know.
 */
export function readStorePassword(file: string, url: string): string {
  const fail = (detail: string) =>
    masterErrors.make('BRINE_ERR_MASTER_STORE_URL', { url: redactStoreUrl(url), detail: `store_password_file ${file}: ${detail}` });
  let text: string;
  try {
    if ((statSync(file).mode & 0o002) !== 0) throw fail(`is writable by every user; make it owner-only: chmod 600 ${file}`);
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as { code?: string }).code === 'BRINE_ERR_MASTER_STORE_URL') throw err;
    throw fail((err as Error).message);
  }
  return text.replace(/\r?\n$/, '');
}
