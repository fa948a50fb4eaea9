import t from 'tap';
import { createCommandRunner } from '@brine/core';
import { OWNER_TO_BE_CREATED, resolveOwnership } from '../src/util/fs-meta.js';

/** Salt's _check_user (states/file.py): its words in a real run, only a warning in test mode. */
t.test('an owner that does not exist yet', async (t) => {
  const cmd = createCommandRunner();
  t.same(await resolveOwnership('brine-never-user', 'brine-never-group', cmd), {
    error: 'User brine-never-user is not available Group brine-never-group is not available',
  });
  t.same(await resolveOwnership('brine-never-user', undefined, cmd), { error: 'User brine-never-user is not available ' });
  t.same(await resolveOwnership('brine-never-user', 'root', cmd, true), { uid: OWNER_TO_BE_CREATED, gid: 0 });
  t.same(await resolveOwnership('root', 'brine-never-group', cmd, true), { uid: 0, gid: OWNER_TO_BE_CREATED });
});
