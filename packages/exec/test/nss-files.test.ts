import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createCommandRunner, type CommandRunner } from '@brine/core';
import t, { type Test } from 'tap';
import { nssFileAnswer, nssFileLines } from '../src/host/nss-files.js';
import { callExec, execContext, execRegistry } from '../src/index.js';

/** What getent prints for `db` and `key` on this host, split as accounts.ts splits it. */
function getent(db: string, key?: string): string[][] {
  try {
    const out = execFileSync('getent', key === undefined ? [db] : [db, key], { encoding: 'utf8' });
    return out
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => l.split(':'));
  } catch {
    return [];
  }
}

function etcWith(t: Test, files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-nss-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
  return dir;
}

const PASSWD = 'root:x:0:0:root:/root:/bin/bash\n# a comment\nalice:x:1000:1000:Alice A,1,2,3:/home/alice:/bin/sh\nalice:x:1001:1001::/home/alice2:\n';

t.test('the files answer where nsswitch.conf names files alone', async (t) => {
  const etc = etcWith(t, { 'nsswitch.conf': 'passwd:   files # local only\ngroup: files\n', passwd: PASSWD, group: 'root:x:0:\nstaff:x:50:alice,bob\n' });
  t.same(
    nssFileAnswer('passwd', 'alice', etc),
    [['alice', 'x', '1000', '1000', 'Alice A,1,2,3', '/home/alice', '/bin/sh']],
    'the first line of a name, as getpwnam',
  );
  t.same(nssFileAnswer('passwd', 'bob', etc), [], 'a name absent from the files is absent');
  t.same(nssFileAnswer('passwd', 1001, etc), [['alice', 'x', '1001', '1001', '', '/home/alice2', '']], 'a number is a uid');
  t.same(nssFileAnswer('passwd', '0', etc)?.[0]?.[0], 'root');
  t.same(nssFileAnswer('passwd', 4242, etc), []);
  t.equal(nssFileAnswer('passwd', undefined, etc)?.length, 3, 'enumeration: every entry, duplicates too');
  t.same(nssFileAnswer('group', 'staff', etc), [['staff', 'x', '50', 'alice,bob']]);
  t.equal(nssFileAnswer('passwd', ' 0', etc), undefined, 'a key getent reads its own way');
  t.equal(nssFileAnswer('passwd', '-1', etc), undefined);
});

t.test('anything else is left to getent', async (t) => {
  const answer = (conf: string, text = PASSWD, key = 'bob') => nssFileAnswer('passwd', key, etcWith(t, { 'nsswitch.conf': conf, passwd: text }));
  t.equal(answer('passwd: files ldap\n'), undefined, 'another source');
  t.equal(answer('passwd: sss files\n'), undefined, 'files not first');
  t.equal(answer('passwd: files [NOTFOUND=return] ldap\n'), undefined, 'actions');
  t.equal(answer('passwd: compat\n'), undefined);
  t.equal(answer('group: files\n'), undefined, 'no passwd line');
  t.equal(answer('passwd: files\n', `${PASSWD}+@netgroup::::::\n`), undefined, 'a compat entry');
  t.equal(answer('passwd: files\n', `${PASSWD} bob:x:2:2::/:/bin/sh\n`), undefined, 'a line glibc may read otherwise');
  t.equal(answer('passwd: files\n', `${PASSWD}bob:x:2:2::/:/bin/sh \n`), undefined, 'trailing space');
  const withSystemd = etcWith(t, { 'nsswitch.conf': 'passwd: files systemd\n', passwd: PASSWD });
  t.equal(nssFileAnswer('passwd', undefined, withSystemd), undefined, 'enumeration with systemd: its entries are not in the files');
  t.equal(answer('passwd: files systemd\n', PASSWD, 'nobody'), undefined, 'a name systemd makes up');
  t.equal(answer('passwd: files systemd\n', PASSWD, '4242'), undefined, 'an id systemd may make up');
  t.equal(nssFileAnswer('passwd', 'bob', path.join(os.tmpdir(), 'no-such-etc-brine')), undefined, 'no nsswitch.conf');
  t.equal(nssFileLines('group', true, etcWith(t, { 'nsswitch.conf': 'group: files\n', group: 'staff:x:50:alice,,bob\n' })), undefined, 'an empty member');
});

t.test("on this host the files' answers are getent's", async (t) => {
  for (const [db, key] of [
    ['passwd', 'root'],
    ['passwd', '0'],
    ['passwd', 'no-such-user-brine'],
    ['passwd', '4242424'],
    ['group', 'root'],
    ['group', 'no-such-group-brine'],
    ['passwd', undefined],
    ['group', undefined],
  ] as const) {
    const local = nssFileAnswer(db, key);
    if (local) t.same(local, getent(db, key), `${db} ${key ?? '(all)'}`);
  }
});

t.test('user.info starts no getent where the files answer', async (t) => {
  if (!nssFileLines('passwd', true)) return t.skip('NSS here is not files (+ systemd)');
  const real = createCommandRunner();
  const ran: string[] = [];
  const cmd: CommandRunner = { run: (c, o) => (ran.push(([] as string[]).concat(c).join(' ')), real.run(c, o)) };
  const registry = execRegistry();
  const ctx = execContext({ registry, grains: {}, direct: true, cmd });
  t.same(await callExec(registry, 'user.info', ['no-such-user-brine'], {}, ctx), {});
  t.same(await callExec(registry, 'user.list_groups', ['no-such-user-brine'], {}, ctx), []);
  const root = (await callExec(registry, 'user.info', ['root'], {}, ctx)) as Record<string, unknown>;
  t.match(root, { name: 'root', uid: 0, gid: 0, home: getent('passwd', 'root')[0][5] });
  t.same(
    ran.filter((c) => c !== 'getent group'),
    [],
    'no getent for a user (the group enumeration may still need one)',
  );
});
