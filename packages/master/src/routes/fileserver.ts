import type { FastifyInstance } from 'fastify';
import type { GitUpdates } from '../git-updates.js';
import { obj, responses, str } from './schemas.js';

export interface FileserverRouteDeps {
  git: GitUpdates;
}

const remote = obj({
  kind: str,
  name: str,
  url: str,
  ok: { type: 'boolean' },
  error: str,
  lastFetch: str,
  lastGood: str,
  envs: { type: 'object', additionalProperties: str },
});
const remotes = responses(obj({ remotes: { type: 'array', items: remote } }));

/**
 * The git remotes behind the tree and the pillar: their status, and an update now (the webhook a
 * git host calls on push; the API token, as every route).
 */
export async function fileserverRoutes(app: FastifyInstance, deps: FileserverRouteDeps): Promise<void> {
  app.get(
    '/v1/fileserver/status',
    { schema: { summary: 'The git remotes: the commit each saltenv is served from, the last fetch', tags: ['fileserver'], response: remotes } },
    async () => ({
      remotes: deps.git.status(),
    }),
  );
  app.post(
    '/v1/fileserver/update',
    { schema: { summary: 'Fetch the git remotes now (gitfs, git_pillar); answers once the trees are rebuilt', tags: ['fileserver'], response: remotes } },
    async () => ({ remotes: await deps.git.update() }),
  );
}
