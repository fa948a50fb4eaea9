import { toBrineError, type Logger } from '@brine/core';
import cookie from '@fastify/cookie';
import helmet from '@fastify/helmet';
import swagger from '@fastify/swagger';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
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
import type { MineService } from './mine.js';
import type { StateService } from './state-service.js';
import type { StoreBackend } from './store-backend.js';
import type { ClusterLink } from './cluster.js';
import type { MasterMetrics } from './metrics.js';
import { metricsRoutes } from './routes/metrics.js';
import { uiRoutes } from './routes/ui.js';
import { runnerRoutes, type RunnerRouteDeps } from './routes/runners.js';
import { UiSessions } from './ui-sessions.js';
import { Accounts } from './auth/accounts.js';
import { installAccess } from './auth/access.js';
import { accountRoutes } from './routes/accounts.js';
import { requestUser } from './routes/jobs.js';
import { allowedHosts } from './api-host-check.js';
import { GuessLimiter } from './guess-limiter.js';
import { fileserverRoutes } from './routes/fileserver.js';

export interface ApiDeps {
  token: string;
  /** Where the token is kept: the console's sign-in page names it. */
  tokenFile?: string;
  store: StoreBackend;
  cluster?: ClusterLink;
  keys: KeyManager;
  hub: MinionHub;
  jobs: JobManager;
  events: EventBus;
  log: Logger;
  fingerprint: string;
  minionChannel: { interface: string; port: number };
  defaultTimeout: number;
  states: StateService;
  files: FileServer;
  metrics: MasterMetrics;
  runners: RunnerRouteDeps['runners'];
  /** /metrics without the token (for a scraper on a trusted network). */
  metricsPublic?: boolean;
  /** Serve HTTPS with this certificate and key (PEM). */
  tls?: { cert: string; key: string };
  /** api_host and api_allowed_hosts: the Host names answered to (beside IPs and localhost). */
  apiHost?: string;
  allowedHosts?: string[];
  /** Wrong-token back-off (tests pass their own). */
  guesses?: GuessLimiter;
  /** The mine: `brine validate --minion` answers mine.get from the store, as a compile does. */
  mine?: MineService;
  /** Accounts, tokens and external_auth (the master passes its config's; tests may too). */
  accounts?: Accounts;
}

/** A coded refusal, as every route answers. */
function refuse(reply: FastifyReply, status: number, code: Parameters<typeof masterErrors.make>[0], args: Record<string, string | number> = {}): FastifyReply {
  const e = masterErrors.make(code, args);
  return reply.code(status).send({ code: e.code, message: e.message });
}

/**
 * The operator API: JSON over HTTP, token in `Authorization: Bearer <token>`. One fastify plugin
 * per route group (routes/*.ts); the OpenAPI document is made by @fastify/swagger from the same
 * schemas the routes validate requests and serialise responses with.
 */
export async function buildApi(deps: ApiDeps): Promise<FastifyInstance> {
  const app = Fastify({ logger: false, bodyLimit: 4 * 1024 * 1024, ...(deps.tls ? { https: { ...deps.tls, minVersion: 'TLSv1.2' as const } } : {}) });
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: { title: 'Brine master API', version: '1' },
      components: { securitySchemes: { token: { type: 'http', scheme: 'bearer' } } },
      security: [{ token: [] }],
    },
  });

  await app.register(cookie);
  // the console's pages run only the master's own scripts and styles, and load nothing from elsewhere
  await app.register(helmet, {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'", 'data:'],
        connectSrc: ["'self'"],
        objectSrc: ["'none'"],
        baseUri: ["'none'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
      },
    },
    // plain HTTP on loopback by default; with api_tls_cert a self-signed certificate is common: no HSTS
    strictTransportSecurity: false,
  });
  const sessions = new UiSessions();

  const hostOk = allowedHosts(deps.apiHost ?? '127.0.0.1', deps.allowedHosts ?? []);
  const guesses = deps.guesses ?? new GuessLimiter();
  const accounts = deps.accounts ?? new Accounts({ store: deps.store.accounts, bootstrapToken: deps.token });
  app.addHook('onRequest', async (req, reply) => {
    if (!hostOk(req.headers.host)) return refuse(reply, 421, 'BRINE_ERR_MASTER_API_HOST', { host: req.headers.host ?? '' });
  });
  const access = {
    accounts,
    sessions,
    guesses,
    log: deps.log,
    metricsPublic: deps.metricsPublic,
    refuse,
    userHint: (req: FastifyRequest) => requestUser(req.headers['x-brine-user']),
  };
  installAccess(app, access);

  app.setErrorHandler(async (err, _req, reply) => {
    const fe = err as { validation?: unknown; statusCode?: number; message: string };
    if (fe.validation) {
      const e = masterErrors.make('BRINE_ERR_MASTER_BAD_REQUEST', { detail: fe.message });
      return reply.code(400).send({ code: e.code, message: e.message });
    }
    const e = toBrineError(err);
    let status = 500;
    if (e.code === 'BRINE_ERR_MASTER_NOT_FOUND') status = 404;
    else if (e.code === 'BRINE_ERR_MASTER_FORBIDDEN') status = 403;
    else if (e.code === 'BRINE_ERR_MASTER_UNAUTHORIZED') status = 401;
    else if (e.code !== 'BRINE_ERR_CORE_INTERNAL' && e.code !== 'BRINE_ERR_MASTER_INTERNAL') status = 400;
    else if (typeof fe.statusCode === 'number' && fe.statusCode < 500) status = fe.statusCode;
    if (status === 500) deps.log.error({ err }, 'API handler failed');
    return reply.code(status).send({ code: e.code, message: e.message, diagnostics: e.diagnostics });
  });

  await app.register(async (i) => keyRoutes(i, deps));
  await app.register(async (i) => minionRoutes(i, deps));
  await app.register(async (i) => jobRoutes(i, deps));
  await app.register(async (i) => runnerRoutes(i, deps));
  await app.register(async (i) => stateRoutes(i, deps));
  await app.register(async (i) => eventRoutes(i, deps));
  await app.register(async (i) => metricsRoutes(i, deps));
  await app.register(async (i) => fileserverRoutes(i, deps.states));
  await app.register(async (i) => uiRoutes(i, access, deps.tokenFile));
  await app.register(async (i) => accountRoutes(i, access));
  app.get('/v1/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  return app;
}
