import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { loadMasterConfig } from '../src/config.js';
import { PgStore } from '../src/store-pg.js';
import { openStore } from '../src/store-url.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-storecred-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

function config(store: string, extra = ''): string {
  const file = path.join(dir, `master-${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(file, `data_dir: ${dir}/data\nstore: '${store}'\n${extra}`);
  return file;
}

t.test('a password in the store URL is refused by the config loader, and never shown', async (t) => {
  for (const url of [
    'postgres://brine:s3cret@db.example:5432/brine',
    'postgres://brine@db.example:5432/brine?password=s3cret',
    'postgresql://brine@db.example/brine?sslmode=require&sslpassword=s3cret',
  ]) {
    const file = config(url);
    let err: Error | undefined;
    try {
      loadMasterConfig(file);
    } catch (e) {
      err = e as Error;
    }
    t.match(err, { code: 'BRINE_ERR_MASTER_STORE_URL', message: /a password in the URL.*store_password_file.*BRINE_STORE_PASSWORD/ }, url);
    t.notMatch(err?.message ?? '', /s3cret/, 'the password is not in the message');
    t.match(err?.message ?? '', file, 'the message names the config file');
  }
  t.equal(loadMasterConfig(config('postgres://brine@db.example:5432/brine?sslmode=require')).store, 'postgres://brine@db.example:5432/brine?sslmode=require');
});

t.test('the driver refuses a password in the URL too (brine store migrate takes --to)', async (t) => {
  await t.rejects(PgStore.open('postgres://brine@127.0.0.1:1/brine?password=s3cret'), { code: 'BRINE_ERR_MASTER_STORE_URL' });
});

t.test('a store_password_file every user may write is refused', async (t) => {
  const pw = path.join(dir, 'pw');
  writeFileSync(pw, 's3cret\n');
  chmodSync(pw, 0o666);
  const url = 'postgres://brine@127.0.0.1:1/brine';
  const cfg = loadMasterConfig(config(url, `store_password_file: ${pw}\n`));
  await t.rejects(openStore({ url: cfg.store!, passwordFile: cfg.store_password_file! }), {
    code: 'BRINE_ERR_MASTER_STORE_URL',
    message: new RegExp(`store_password_file ${pw}: is writable by every user; make it owner-only: chmod 600`),
  });
});

t.test('store locations in log lines and errors are USER@HOST:PORT/DB only', async (t) => {
  const { redactStoreUrl } = await import('../src/store-location.js');
  t.equal(redactStoreUrl('postgres://brine:pw@db:5432/brine?sslmode=require&password=pw'), 'postgres://brine@db:5432/brine');
  t.equal(redactStoreUrl('postgresql://db/brine'), 'postgresql://db/brine');
  t.equal(redactStoreUrl('sqlite:/var/lib/brine/master.db'), 'sqlite:/var/lib/brine/master.db');
  t.notMatch(redactStoreUrl('postgres://a:b:c@@x'), /b/);
  // a connection failure (nothing listens on port 1) names the store without its parameters
  await t.rejects(openStore({ url: 'postgres://brine@127.0.0.1:1/brine?sslmode=disable' }, { BRINE_STORE_PASSWORD: 'pw' }), {
    code: 'BRINE_ERR_MASTER_STORE',
    message: /^store postgres:\/\/brine@127\.0\.0\.1:1\/brine: /,
  });
});
