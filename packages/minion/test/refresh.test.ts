import t from 'tap';
import { RefreshHooks } from '../src/refresh.js';

t.test('refresh listeners hear each refresh until they unsubscribe; one that throws does not stop the others', async (t) => {
  const errors: string[] = [];
  const hooks = new RefreshHooks((err, what) => errors.push(`${what}: ${(err as Error).message}`));
  const heard: unknown[] = [];
  const off = hooks.onPillarRefresh((p) => void heard.push(p));
  hooks.onPillarRefresh(() => {
    throw new Error('broken');
  });
  hooks.onGrainsRefresh(async (g) => void heard.push(g));
  await hooks.firePillar({ mine_functions: {} });
  await hooks.fireGrains({ role: 'web' });
  off();
  await hooks.firePillar({ again: true });
  t.same(heard, [{ mine_functions: {} }, { role: 'web' }]);
  t.same(errors, ['pillar: broken', 'pillar: broken']);
});
