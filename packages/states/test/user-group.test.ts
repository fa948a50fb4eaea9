import t from 'tap';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { callState, defaultRegistry } from '../src/index.js';
import { argv, chunk, ctxFor, fakeRunner } from './helpers.js';

const reg = defaultRegistry();
const root = process.getuid?.() === 0;
const suffix = `${process.pid}${Math.floor(Math.random() * 1000)}`;
const U = `brineu${suffix}`;
const G = `brineg${suffix}`;
const G2 = `brineh${suffix}`;

const call = (state: string, fun: string, name: string, extra: Record<string, unknown> = {}, test = false) => {
  const c = chunk(state, fun, name, extra);
  return callState(reg, c, ctxFor(c, { test }));
};

function cleanup() {
  for (const [cmd, n] of [
    ['userdel', U],
    ['groupdel', G],
    ['groupdel', G2],
  ]) {
    try {
      execFileSync(cmd, cmd === 'userdel' ? ['-r', n] : [n], { stdio: 'ignore' });
    } catch {
      /* not there */
    }
  }
}

t.test('groups and users for real (root)', { skip: root ? false : 'needs root' }, async (t) => {
  t.teardown(cleanup);
  const tg = await call('group', 'present', G, {}, true);
  t.same([tg.result, tg.comment], [null, `Group ${G} set to be added`]);
  const g = await call('group', 'present', G, { gid: 45123 });
  t.equal(g.comment, `New group ${G} created`);
  t.match(g.new_state, { name: G, gid: 45123, members: [] });
  t.same((await call('group', 'present', G, { gid: 45123 })).comment, `Group ${G} is present and up to date`);
  await call('group', 'present', G2);

  const tu = await call('user', 'present', U, { shell: '/bin/sh' }, true);
  t.same([tu.result, tu.comment], [null, `User ${U} set to be added`]);
  t.throws(() => execFileSync('id', [U], { stdio: 'ignore' }), 'test mode created nothing');
  const u = await call('user', 'present', U, { shell: '/bin/sh', groups: [G], home: `/home/${U}`, fullname: 'Brine Test' });
  t.equal(u.result, true, u.comment);
  t.equal(u.comment, `New user ${U} created`);
  t.match(u.new_state, { name: U, shell: '/bin/sh', home: `/home/${U}`, fullname: 'Brine Test' });
  t.ok((u.new_state as { groups: string[] }).groups.includes(G));
  t.ok(existsSync(`/home/${U}`), 'home created');
  const same = await call('user', 'present', U, { shell: '/bin/sh', groups: [G] });
  t.same([same.result, same.comment, same.changes], [true, `User ${U} is present and up to date`, {}]);
  const wouldChange = await call('user', 'present', U, { shell: '/bin/bash', groups: [G2] }, true);
  // as Salt (checked with the oracle): test mode names the changes in the comment only
  t.same([wouldChange.result, wouldChange.changes], [null, {}]);
  t.equal(wouldChange.comment, `The following user attributes are set to be changed:\nshell: /bin/bash\ngroups: ['${G2}']\n`);
  const changed = await call('user', 'present', U, { shell: '/bin/bash', groups: [G2] });
  // the groups the change leaves, the user's own group included (as Salt reports them)
  t.same([changed.comment, changed.changes], [`Updated user ${U}`, { shell: '/bin/bash', groups: [G2, U].sort() }]);
  t.equal(execFileSync('id', ['-nG', U]).toString().trim().split(' ').sort().join(' '), [U, G2].sort().join(' '));

  const members = await call('group', 'present', G, { members: [U] });
  // as Salt words it (the golden case group/groups has Salt's own answers)
  t.same(
    [members.comment, members.changes],
    [`The following group attributes are set to be changed:\nmembers: ['${U}']\n`, { Final: 'All changes applied successfully' }],
  );
  const badMember = await call('group', 'present', G, { members: ['no-such-user-brine'] });
  t.same([badMember.result, badMember.changes], [false, { Failed: { members: ['no-such-user-brine'] } }]);

  const ta = await call('user', 'absent', U, { purge: true }, true);
  t.same([ta.result, ta.comment], [null, `User ${U} set for removal`]);
  const a = await call('user', 'absent', U, { purge: true });
  t.same([a.result, a.comment, a.changes], [true, `Removed user ${U}`, { [U]: 'removed', [`${U} group`]: 'removed' }]);
  t.notOk(existsSync(`/home/${U}`), 'purged home');
  t.equal((await call('user', 'absent', U)).comment, `User ${U} is not present`);
  const ga = await call('group', 'absent', G);
  t.same([ga.comment, ga.changes], [`Removed group ${G}`, { [G]: '' }]);
  t.equal((await call('group', 'absent', G)).comment, 'Group not present');
});

t.test('user.present builds useradd as expected', async (t) => {
  const runner = fakeRunner((cmd) => (argv(cmd).startsWith('getent') ? { retcode: 2 } : undefined));
  const c = chunk('user', 'present', 'ghost-brine-user', { uid: 4321, system: true, shell: '/usr/sbin/nologin' });
  const r = await callState(reg, c, ctxFor(c, { cmd: runner }));
  t.ok(
    runner.calls.some((x) => argv(x.cmd) === 'useradd -u 4321 -M -s /usr/sbin/nologin -r ghost-brine-user'),
    JSON.stringify(runner.calls),
  );
  t.equal(r.result, true);
});
