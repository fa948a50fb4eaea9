import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import t from 'tap';
import { Cluster } from './helpers/cluster.js';
import { writeTree } from './helpers/fleet-tree.js';

/**
 * Issue 26 item 4: a pillar value encrypted with GPG (`#!jinja|yaml|gpg`) is decrypted by the
 * master with the keyring in gpg_keydir and reaches a file.managed on the minion; a value
 * encrypted to a key the keyring lacks fails that minion's pillar naming the key id; the plain
 * text is nowhere in the master's log or store.
 */
const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-gpg-e2e-'));
const keydir = path.join(dir, 'gpgkeys');
const stranger = path.join(dir, 'stranger');
const pillar = path.join(dir, 'pillar');
const states = path.join(dir, 'states');
const out = path.join(dir, 'out');
mkdirSync(out);

function gpg(home: string, args: string[], input?: string): string {
  return execFileSync('gpg', ['--homedir', home, '--batch', ...args], {
    encoding: 'utf8',
    ...(input !== undefined ? { input } : {}),
    stdio: ['pipe', 'pipe', 'ignore'],
  });
}
function newKey(home: string, name: string): string {
  mkdirSync(home, { mode: 0o700 });
  gpg(home, ['--passphrase', '', '--quick-gen-key', `${name} <${name}@brine.invalid>`, 'rsa2048', 'encr', 'never']);
  return gpg(home, ['--with-colons', '--list-keys'])
    .split('\n')
    .find((l) => l.startsWith('pub:'))!
    .split(':')[4]!;
}
const encrypt = (home: string, to: string, text: string) => gpg(home, ['--armor', '--trust-model', 'always', '-r', to, '--encrypt'], text);
const block = (armoured: string, indent: string) => armoured.trimEnd().split('\n').join(`\n${indent}`);

newKey(keydir, 'master');
const strangerKey = newKey(stranger, 'stranger');
const PLAIN = 'e2e-plaintext-7f3a9c1d';

writeTree(states, {
  'top.sls': "base:\n  '*':\n    - app\n",
  'app.sls': `${out}/app.conf:\n  file.managed:\n    - contents: "password={{ pillar.app.password }}"\n`,
});
const pillarFiles = (armoured: string) => ({
  'top.sls': "base:\n  '*':\n    - app\n",
  'app.sls': `#!jinja|yaml|gpg\napp:\n  host: '{{ grains.id }}'\n  password: |\n    ${block(armoured, '    ')}\n`,
});
writeTree(pillar, pillarFiles(encrypt(keydir, 'master@brine.invalid', PLAIN)));

const cluster = new Cluster({
  minions: ['g1'],
  master: { file_roots: { base: [states] }, pillar_roots: { base: [pillar] }, gpg_keydir: keydir, log_level: 'debug', timeout: 60 },
});
t.before(() => cluster.start());
t.teardown(async () => {
  await cluster.close();
  for (const home of [keydir, stranger]) {
    try {
      execFileSync('gpgconf', ['--homedir', home, '--kill', 'gpg-agent'], { stdio: 'ignore' });
    } catch {
      // no agent running there
    }
  }
  rmSync(dir, { recursive: true, force: true });
});

/** Every text the master's store holds (each table dumped), and the raw bytes of its files. */
function storeText(): string {
  const dataDir = path.join(cluster.dir, 'master');
  const db = new Database(path.join(dataDir, 'master.db'), { readonly: true });
  try {
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as Array<{ name: string }>;
    const rows = tables.map((tb) => JSON.stringify(db.prepare(`SELECT * FROM "${tb.name}"`).all()));
    const raw = readdirSync(dataDir)
      .filter((f) => f.startsWith('master.db'))
      .map((f) => readFileSync(path.join(dataDir, f)).toString('latin1'));
    return [...rows, ...raw].join('\n');
  } finally {
    db.close();
  }
}

t.test('an encrypted pillar value reaches the minion; the plain text is in neither the log nor the store', async (t) => {
  const res = await cluster.run('g1', 'state.apply', [], { timeout: 60 });
  t.equal(res.returns.g1?.retcode, 0, JSON.stringify(res.returns.g1?.return).slice(0, 2000));
  t.equal(readFileSync(path.join(out, 'app.conf'), 'utf8'), `password=${PLAIN}\n`, 'contents end with a newline, as in Salt');
  const shown = await cluster.client.get<{ pillar: { app: { password: string; host: string } } }>('/v1/minions/g1/pillar');
  t.equal(shown.pillar.app.password, PLAIN, "the operator asking for this minion's pillar sees the value");
  t.notMatch(cluster.master.stderrText + cluster.master.stdoutText, PLAIN, 'not in the master log');
  t.notMatch(storeText(), PLAIN, 'not in the store');
});

t.test("a value encrypted to a key the keyring lacks fails the minion's pillar, naming the key id", async (t) => {
  writeTree(pillar, pillarFiles(encrypt(stranger, 'stranger@brine.invalid', 'not-for-this-master')));
  const res = await cluster.run('g1', 'state.apply', [], { timeout: 60 });
  t.not(res.returns.g1?.retcode, 0);
  const text = JSON.stringify(res.returns.g1?.return);
  t.match(text, /BRINE_ERR_MASTER_GPG_DECRYPT/);
  t.match(text, strangerKey);
  t.match(text, /app\.sls/);
  t.notMatch(cluster.master.stderrText + cluster.master.stdoutText + storeText(), PLAIN);
});
