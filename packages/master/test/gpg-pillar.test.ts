/** Pillar values through the gpg renderer: decrypted by the master with a real keyring (gpg in a temp home). */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createLogger } from '@brine/core';
import t from 'tap';
import { MASTER_DEFAULTS, type MasterConfig } from '../src/config.js';
import { GpgDecryptor } from '../src/gpg-decrypt.js';
import { loadMasterTops } from '../src/master-tops.js';
import { StateService } from '../src/state-service.js';

const base = mkdtempSync(path.join(os.tmpdir(), 'brine-gpg-'));
t.teardown(() => {
  for (const home of ['keys', 'other', 'golden']) spawnQuiet(['--homedir', path.join(base, home), '--kill', 'gpg-agent'], 'gpgconf');
  rmSync(base, { recursive: true, force: true });
});

function spawnQuiet(args: string[], cmd = 'gpg'): void {
  try {
    execFileSync(cmd, args, { stdio: 'ignore' });
  } catch {
    // best effort (an agent that is not running)
  }
}

/** A gpg home with one passphrase-less key; its long key id. */
function keyring(name: string): { home: string; keyid: string } {
  const home = path.join(base, name);
  mkdirSync(home, { mode: 0o700 });
  execFileSync('gpg', ['--homedir', home, '--batch', '--passphrase', '', '--quick-gen-key', `${name} <${name}@brine.invalid>`, 'rsa2048', 'encr', 'never'], {
    stdio: 'ignore',
  });
  const listing = execFileSync('gpg', ['--homedir', home, '--batch', '--with-colons', '--list-keys'], { encoding: 'utf8' });
  return {
    home,
    keyid: listing
      .split('\n')
      .find((l) => l.startsWith('pub:'))!
      .split(':')[4]!,
  };
}

function encrypt(home: string, to: string, text: string): string {
  return execFileSync('gpg', ['--homedir', home, '--batch', '--armor', '--trust-model', 'always', '-r', to, '--encrypt'], { input: text, encoding: 'utf8' });
}

const keys = keyring('keys');
const other = keyring('other');
const SECRET = 'correct horse battery staple';
const secretBlock = encrypt(keys.home, 'keys@brine.invalid', SECRET);
const otherBlock = encrypt(other.home, 'other@brine.invalid', 'not for this master');
const indent = (s: string) => s.trimEnd().split('\n').join('\n    ');

const log = createLogger({ level: 'silent' });
async function service(cfg: Partial<MasterConfig>): Promise<StateService> {
  const config = { ...MASTER_DEFAULTS, ...cfg } as MasterConfig;
  return new StateService(config, await loadMasterTops(config.master_tops, config.master_tops_dirs), log);
}

function pillarTree(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(base, 'pillar-'));
  for (const [rel, text] of Object.entries(files)) writeFileSync(path.join(dir, rel), text);
  return dir;
}

t.test('a #!jinja|yaml|gpg pillar value is decrypted on the master; one without gpg in its pipe stays as written', async (t) => {
  const dir = pillarTree({
    'top.sls': "base:\n  '*':\n    - secrets\n    - plain\n",
    'secrets.sls': `#!jinja|yaml|gpg\ndb:\n  password: |\n    ${indent(secretBlock)}\n  user: '{{ grains.id }}'\n  inline: "pre-${secretBlock.trimEnd().replace(/\n/g, '\\n')}"\n`,
    'plain.sls': `#!yaml\nkept: |\n  ${encrypt(keys.home, 'keys@brine.invalid', 'x').trimEnd().split('\n').join('\n  ')}\n`,
  });
  const s = await service({ pillar_roots: { base: [dir] }, file_roots: {}, gpg_keydir: keys.home });
  const p = await s.pillar('web1', {});
  t.same(p.diagnostics, []);
  const db = p.pillar.db as Record<string, string>;
  t.equal(db.password, SECRET, 'block decrypted, the trailing newline stripped as Salt does');
  t.equal(db.user, 'web1');
  t.equal(db.inline, `pre-${SECRET}`, 'a block inside a longer string is replaced in place');
  t.match(p.pillar.kept, /^-----BEGIN PGP MESSAGE-----/, 'a file without gpg in its pipe is not decrypted');
});

t.test('a block encrypted to a key the keyring lacks fails that pillar, naming the key id and the file', async (t) => {
  const dir = pillarTree({
    'top.sls': "base:\n  'bad*':\n    - broken\n  '*':\n    - fine\n",
    'broken.sls': `#!yaml|gpg\nsecret: |\n  ${otherBlock.trimEnd().split('\n').join('\n  ')}\n`,
    'fine.sls': `#!yaml|gpg\nok: |\n  ${secretBlock.trimEnd().split('\n').join('\n  ')}\n`,
  });
  const s = await service({ pillar_roots: { base: [dir] }, file_roots: {}, gpg_keydir: keys.home });
  const bad = await s.pillar('bad1', {});
  t.equal(bad.diagnostics[0]?.code, 'BRINE_ERR_MASTER_GPG_DECRYPT');
  t.match(bad.diagnostics[0]?.message, new RegExp(`broken\\.sls.*${other.keyid}`));
  t.same(bad.pillar, {}, 'no partial pillar');
  const good = await s.pillar('good1', {});
  t.same(good.diagnostics, []);
  t.equal(good.pillar.ok, SECRET, 'another minion is not affected');
  const compiled = await s.compile('bad1', {}, { mode: 'highstate' });
  t.ok(compiled.failed, 'the compile of the minion whose pillar failed fails');
});

t.test('a #!yaml|gpg state file: decrypted in the chunks; a block the keyring cannot open fails that compile naming key and file', async (t) => {
  const files = pillarTree({
    'top.sls': "base:\n  '*':\n    - s\n  'bad*':\n    - broken\n",
    's.sls': `#!yaml|gpg\nx:\n  test.nop:\n    - v: |\n        ${secretBlock.trimEnd().split('\n').join('\n        ')}\n`,
    'broken.sls': `#!yaml|gpg\ny:\n  test.nop:\n    - v: |\n        ${otherBlock.trimEnd().split('\n').join('\n        ')}\n`,
  });
  const s = await service({ file_roots: { base: [files] }, pillar_roots: {}, gpg_keydir: keys.home });
  const good = await s.compile('good1', {}, { mode: 'highstate' });
  t.same(good.errors, []);
  t.equal(good.low[0]?.v, SECRET);
  const bad = await s.compile('bad1', {}, { mode: 'highstate' });
  t.ok(bad.failed);
  t.match(bad.errors.join('\n'), new RegExp(`BRINE_ERR_MASTER_GPG_DECRYPT.*broken\\.sls.*${other.keyid}`));
});

t.test('GpgDecryptor: each block decrypted once per master lifetime; concurrency bounded; failures not cached', async (t) => {
  const gpg = new GpgDecryptor({ keydir: keys.home, concurrency: 1 });
  const blocks = [secretBlock, encrypt(keys.home, 'keys@brine.invalid', 'two')];
  const [a, b, again] = await Promise.all([gpg.decrypt(blocks[0]!), gpg.decrypt(blocks[1]!), gpg.decrypt(blocks[0]!)]);
  t.same(
    [a, b, again],
    [
      { ok: true, plain: SECRET },
      { ok: true, plain: 'two' },
      { ok: true, plain: SECRET },
    ],
  );
  t.equal(gpg.decrypt(blocks[0]!), gpg.decrypt(blocks[0]!), 'the same cached answer');
  const missing = new GpgDecryptor({ keydir: path.join(base, 'no-such-home') });
  const out = await missing.decrypt(secretBlock);
  t.equal(out.ok, false);
  t.equal(out.ok ? '' : out.key, keys.keyid, 'the key id from gpg status lines');
});

t.test('golden cases with gpg (compiler/test/golden/salt/*/gpg-secret.asc): the low state Salt printed', async (t) => {
  const golden = path.join(import.meta.dirname, '../../compiler/test/golden/salt');
  const cases = readdirSync(golden).filter((c) => existsSync(path.join(golden, c, 'gpg-secret.asc')));
  t.ok(cases.length >= 1, 'at least one gpg golden case');
  const home = path.join(base, 'golden');
  mkdirSync(home, { mode: 0o700 });
  for (const c of cases) {
    const dir = path.join(golden, c);
    execFileSync('gpg', ['--homedir', home, '--batch', '--import', path.join(dir, 'gpg-secret.asc')], { stdio: 'ignore' });
    const s = await service({ file_roots: { base: [path.join(dir, 'tree')] }, pillar_roots: { base: [path.join(dir, 'pillar')] }, gpg_keydir: home });
    const grains = JSON.parse(readFileSync(path.join(dir, 'grains.json'), 'utf8')) as Record<string, unknown>;
    const out = await s.compile('anchor', grains, { mode: 'highstate' });
    t.same(out.errors, [], c);
    t.same(out.low, JSON.parse(readFileSync(path.join(dir, 'salt-low.json'), 'utf8')), c);
  }
});
