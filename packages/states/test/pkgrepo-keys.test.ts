import t from 'tap';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { callState, createRegistry, dirFileClient, pkgrepoModule } from '../src/index.js';
import { chunk, ctxFor } from './helpers.js';
import { goldenRoot } from './golden-cases.js';
import { which } from './which.js';

// CI runs as root with every tool installed (scripts/test-deps.sh): there a missing tool fails the
// test instead of skipping it.
const asRoot = process.getuid?.() === 0;

/** pkgrepo without apt-key (aptkey: False): the key goes dearmored into the signed-by keyring. */
t.test('aptkey False writes the key to the signed-by keyring under the root', { skip: which('gpg') || asRoot ? false : 'gpg not installed' }, async (t) => {
  const root = await mkdtemp(join(tmpdir(), 'brine-pkgrepo-keys-'));
  t.teardown(() => rm(root, { recursive: true, force: true }));
  await mkdir(join(root, 'etc/apt/sources.list.d'), { recursive: true });
  await mkdir(join(root, 'etc/apt/keyrings'), { recursive: true });
  const reg = createRegistry([pkgrepoModule({ root })]);
  const files = dirFileClient({ base: [join(goldenRoot, 'pkgrepo/managed/tree')] });
  const name = 'deb [signed-by=/etc/apt/keyrings/brine.gpg] http://keyed.example.invalid/debian bookworm main';
  const c = chunk('pkgrepo', 'managed', name, { file: '/etc/apt/sources.list.d/keyed.list', key_url: 'salt://brine-test.asc', aptkey: false, refresh: false });
  const r = await callState(reg, c, ctxFor(c, { files }));
  t.same([r.result, r.comment, r.changes], [true, `Configured package repo '${name}'`, { repo: name }]);
  const keyring = readFileSync(join(root, 'etc/apt/keyrings/brine.gpg'));
  t.equal(keyring[0]! & 0x80, 0x80, 'a binary (dearmored) OpenPGP keyring');
  t.equal(readFileSync(join(root, 'etc/apt/sources.list.d/keyed.list'), 'utf8'), `${name}\n`);
  const plain = chunk('pkgrepo', 'managed', 'deb http://plain.example.invalid/debian bookworm main', { aptkey: false, refresh: false });
  const p = await callState(reg, plain, ctxFor(plain, { files }));
  t.same(
    [p.result, p.comment],
    [false, "Failed to configure repo 'deb http://plain.example.invalid/debian bookworm main': missing 'signedby' option when apt-key is missing"],
  );
  t.notOk(existsSync(join(root, 'etc/apt/sources.list')));
});
