import t from 'tap';
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { callState, defaultRegistry } from '../src/index.js';
import { chunk, ctxFor } from './helpers.js';
import { goldenRoot } from './golden-cases.js';

/** What the Salt golden cases do not cover: a source_hash read from a checksum file, salt:// git keys. */
const reg = defaultRegistry();

t.test('archive.extracted takes the hash for the source from a checksum file', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'brine-archive-sum-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  execFileSync('bash', [join(goldenRoot, 'archive/extracted/make-archives.sh'), join(dir, 'src')]);
  const tgz = join(dir, 'src/app.tar.gz');
  const sum = createHash('sha256').update(readFileSync(tgz)).digest('hex');
  await writeFile(join(dir, 'SHA256SUMS'), `${'0'.repeat(64)}  flat.tar.gz\n${sum}  app.tar.gz\n`);
  const c = chunk('archive', 'extracted', join(dir, 'dest'), { source: tgz, source_hash: join(dir, 'SHA256SUMS') });
  const r = await callState(reg, c, ctxFor(c));
  t.equal(r.result, true, r.comment);
  t.ok(existsSync(join(dir, 'dest/app/bin/run')));
  await writeFile(join(dir, 'BAD'), `${'1'.repeat(64)}  app.tar.gz\n`);
  const bad = chunk('archive', 'extracted', join(dir, 'dest2'), { source: tgz, source_hash: `file://${join(dir, 'BAD')}` });
  const rb = await callState(reg, bad, ctxFor(bad));
  t.same([rb.result, rb.comment], [false, `${tgz} does not match the desired source_hash ${'1'.repeat(64)}`]);
  const none = chunk('archive', 'extracted', join(dir, 'dest3'), { source: tgz, source_hash: join(dir, 'nothing') });
  const rn = await callState(reg, none, ctxFor(none));
  t.same([rn.result, rn.comment], [false, `Source hash file ${join(dir, 'nothing')} contains no hash for app.tar.gz`]);
});

t.test('git.latest refuses a salt:// identity the file server lacks, and relative ones', async (t) => {
  const c = chunk('git', 'latest', 'ssh://git@example.invalid/x.git', { target: '/tmp/brine-never-cloned', identity: 'salt://keys/deploy' });
  const r = await callState(reg, c, ctxFor(c));
  t.same([r.result, r.comment], [false, "identity 'salt://keys/deploy' does not exist."]);
  const rel = chunk('git', 'latest', 'ssh://git@example.invalid/x.git', { target: '/tmp/brine-never-cloned', identity: 'keys/deploy' });
  const rr = await callState(reg, rel, ctxFor(rel));
  t.same([rr.result, rr.comment], [false, "identity 'keys/deploy' is not an absolute path"]);
  t.notOk(existsSync('/tmp/brine-never-cloned'));
});
