import { toBrineError, type Logger } from '@brine/core';
import swagger from '@fastify/swagger';
import Fastify, { type FastifyInstance } from 'fastify';
import { masterErrors } from './errors.js';
import type { EventBus } from './event-bus.js';
import type { FileServer } from './file-server.js';
import type { MinionHub } from './hub.js';
import type { JobManager } from './jobs.js';
import type { KeyManager } from './keys.js';
import { eventRoutes } from './routes/events.js';
import { jobRoutes } from './routes/jobs.js';
import { keyRoutes } from './routes/keys.js';
import { minionRoutes } from './routes/minions.js';
import { stateRoutes } from './routes/states.js';
import type { StateService } from './state-service.js';
import type { StoreBackend } from './store-backend.js';
import type { ClusterLink } from './cluster.js';
import { tokenMatches } from './tls.js';

export interface ApiDeps {
  token: string;
  store: StoreBackend;
  cluster?: ClusterLink;
  keys: KeyManager;
  hub: MinionHub;
  jobs: JobManager;
  events: EventBus;
  log: Logger;
  fingerprint: string;
  defaultTimeout: number;
  states: StateService;
  files: FileServer;
}

/**
 * The operator API: JSON over HTTP, token in `Authorization: Bearer <token>`. One fastify plugin
 * per route group (routes/*.ts); the OpenAPI document is made by @fastify/swagger from the same
 * schemas the routes validate requests and serialise responses with.
 */
export async function buildApi(deps: ApiDeps): Promise<FastifyInstance> {
  const app = Fastify({ logger: false, bodyLimit: 4 * 1024 * 1024 });
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: { title: 'Brine master API', version: '1' },
      components: { securitySchemes: { token: { type: 'http', scheme: 'bearer' } } },
      security: [{ token: [] }],
    },
  });

  app.addHook('onRequest', async (req, reply) => {
    if (req.url === '/v1/openapi.json') return;
    const header = req.headers.authorization ?? '';
    const given = header.startsWith('Bearer ') ? header.slice(7).trim() : undefined;
    if (!tokenMatches(given, deps.token)) {
      const e = masterErrors.make('BRINE_ERR_MASTER_UNAUTHORIZED');
      await reply.code(401).send({ code: e.code, message: e.message });
    }
  });

  app.setErrorHandler(async (err, _req, reply) => {
    const fe = err as { validation?: unknown; statusCode?: number; message: string };
    if (fe.validation) {
      const e = masterErrors.make('BRINE_ERR_MASTER_BAD_REQUEST', { detail: fe.message });
      return reply.code(400).send({ code: e.code, message: e.message });
    }
    const e = toBrineError(err);
    let status = 500;
    if (e.code === 'BRINE_ERR_MASTER_NOT_FOUND') status = 404;
    else if (e.code !== 'BRINE_ERR_CORE_INTERNAL' && e.code !== 'BRINE_ERR_MASTER_INTERNAL') status = 400;
    else if (typeof fe.statusCode === 'number' && fe.statusCode < 500) status = fe.statusCode;
    if (status === 500) deps.log.error({ err }, 'API handler failed');
    return reply.code(status).send({ code: e.code, message: e.message, diagnostics: e.diagnostics });
  });

  await app.register(async (i) => keyRoutes(i, deps));
  await app.register(async (i) => minionRoutes(i, deps));
  await app.register(async (i) => jobRoutes(i, deps));
  await app.register(async (i) => stateRoutes(i, deps));
  await app.register(async (i) => eventRoutes(i, deps));
  app.get('/v1/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  return app;
}
