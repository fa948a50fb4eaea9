import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { parse } from 'yaml';
import type { BusEvent } from '@brine/master/client';
import { Cluster } from './helpers/cluster.js';
import { releaseArtifacts } from './helpers/release.js';
import { Sshd, sshdUnavailable, stopByPidFile } from './helpers/sshd.js';

// `brine bootstrap` through a real OpenSSH server on loopback, into a temp prefix and data dir
// (test/readme-fleet.test.ts bootstraps two hosts through one sshd; one is enough here, beside
// one that cannot be reached).
const unavailable = sshdUnavailable();
t.plan(1);
// the release build (shared with release.test.ts, under a lock) may come first
t.setTimeout(300_000);
t.test('bootstrap over ssh: installed, key accepted, fingerprint pinned, highstate, idempotent', { skip: unavailable ?? false }, async (t) => {
  const cluster = new Cluster({ autosign: false, master: { file_roots: { base: [] } } });
  const tree = path.join(cluster.dir, 'states');
  const out = path.join(cluster.dir, 'out');
  mkdirSync(tree);
  mkdirSync(out);
  writeFileSync(path.join(tree, 'top.sls'), "base:\n  '*':\n    - hello\n");
  writeFileSync(
    path.join(tree, 'hello.sls'),
    `hello:\n  file.managed:\n    - name: ${out}/{{ grains['id'] }}.txt\n    - contents: hello from {{ grains['id'] }}\n`,
  );
  cluster.setMasterOptions({ file_roots: { base: [tree] } });
  const sshd = new Sshd(path.join(cluster.dir, 'sshd'));
  const hosts = path.join(cluster.dir, 'hosts');
  t.teardown(async () => {
    stopByPidFile(path.join(hosts, 'alpha/var/minion.pid'));
    await sshd.close();
    await cluster.close();
  });
  const { tarball, version } = releaseArtifacts();
  await cluster.start();
  await sshd.start();

  const events: BusEvent[] = [];
  const stopEvents = new AbortController();
  await new Promise<void>((resolve, reject) => {
    cluster.client.events('brine/*', (e) => events.push(e), stopEvents.signal, resolve).catch(reject);
  });
  t.teardown(() => stopEvents.abort());

  const target = `root@127.0.0.1:${sshd.port}`;
  const args = ['bootstrap', '--tarball', tarball, '--prefix', `${hosts}/{id}`, '--data-dir', `${hosts}/{id}/data`, ...sshd.sshOptions];
  // gamma cannot be reached: it is named with its reason, the exit code says so, alpha goes on
  const first = await cluster.brine([...args, '--concurrency', '2', `alpha=${target}`, 'gamma=root@127.0.0.1:1']);
  t.equal(first.code, 1, `${first.stdout}\n${first.stderr}`);
  t.match(first.stdout, /^alpha: installed brine 0\.1\.0, .*key accepted \([0-9A-F:]{95}\), minion started, connected as alpha$/m);
  t.match(first.stdout, /^gamma: failed: BRINE_ERR_CLI_BOOTSTRAP_SSH: gamma=root@127\.0\.0\.1:1: probe over ssh failed: exit 255: .*Connection refused/m);
  t.match(first.stdout, /2 host\(s\): 1 changed, 0 unchanged, 1 failed/);

  // keys went straight to accepted: no pending row, no hello refused on the way
  const keys = await cluster.client.get<{ accepted: string[]; pending: string[] }>('/v1/keys');
  t.same(keys.accepted, ['alpha']);
  t.same(keys.pending, []);
  t.notOk(
    events.some((e) => e.tag === 'brine/auth' && (e.data as { act?: string }).act !== 'accepted'),
    'no key was pending or denied at any point',
  );
  for (const id of ['alpha']) {
    const cfg = parse(readFileSync(path.join(hosts, id, 'etc/minion.yaml'), 'utf8')) as Record<string, unknown>;
    t.equal(cfg.master_finger, cluster.fingerprint, `${id} pins the master's fingerprint`);
    t.equal(cfg.id, id);
    t.equal(cfg.master_port, cluster.port);
    t.ok(existsSync(path.join(hosts, id, 'data/pki/minion.pem')), `${id}'s key was made on the target`);
    t.equal(readFileSync(path.join(hosts, id, '.brine-release'), 'utf8').trim().length, 64);
  }
  t.match(readFileSync(path.join(hosts, 'alpha/release/lib/package.json'), 'utf8'), `"version": "${version}"`);

  // a highstate through the master reaches both
  await cluster.waitMinionsKnown(['alpha']);
  const hs = await cluster.run(['alpha'], 'state.apply', [], { tgt_type: 'list', timeout: 60 });
  t.same(Object.keys(hs.returns), ['alpha'], JSON.stringify(hs));
  for (const id of ['alpha']) {
    t.equal(hs.returns[id]?.retcode, 0, JSON.stringify(hs.returns[id]));
    t.equal(readFileSync(path.join(out, `${id}.txt`), 'utf8').trim(), `hello from ${id}`);
  }

  // again: nothing copied, written or restarted
  const releaseDir = statSync(path.join(hosts, 'alpha/release'));
  const pid = readFileSync(path.join(hosts, 'alpha/var/minion.pid'), 'utf8');
  const configTime = statSync(path.join(hosts, 'alpha/etc/minion.yaml')).mtimeMs;
  const again = await cluster.brine([...args, `alpha=${target}`]);
  t.equal(again.code, 0, `${again.stdout}\n${again.stderr}`);
  t.match(again.stdout, /^alpha: unchanged/m);
  t.match(again.stdout, /1 host\(s\): 0 changed, 1 unchanged, 0 failed/);
  t.notMatch(again.stdout, /installed|written|started/);
  t.equal(statSync(path.join(hosts, 'alpha/release')).ino, releaseDir.ino, 'the release was not copied again');
  t.equal(statSync(path.join(hosts, 'alpha/etc/minion.yaml')).mtimeMs, configTime, 'the config was not rewritten');
  t.equal(readFileSync(path.join(hosts, 'alpha/var/minion.pid'), 'utf8'), pid, 'the minion was not restarted');
  t.same((await cluster.client.get<{ accepted: string[] }>('/v1/keys')).accepted, ['alpha']);
});
