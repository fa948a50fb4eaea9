import { toBrineError, type Logger } from '@brine/core';
import { JID_PATTERN, type KeyState } from '@brine/protocol';
import { TARGET_TYPES, type TargetType } from '@brine/compiler';
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import { masterErrors } from './errors.js';
import type { EventBus } from './event-bus.js';
import type { MinionHub } from './hub.js';
import type { JobManager } from './jobs.js';
import type { KeyManager } from './keys.js';
import { buildOpenApi, type RouteDoc } from './openapi.js';
import { dataRoutes } from './data-routes.js';
import type { MasterStore } from './store.js';
import { tokenMatches } from './tls.js';
import type { FileServer } from './file-server.js';
import { jidFromTime, parseSince } from './jid.js';
import type { StateResultStore } from './state-results.js';
import type { StateService } from './state-service.js';

/** The operator's name the CLI sends; anything odd is recorded as plain 'api'. */
function requestUser(h: string | string[] | undefined): string {
  return typeof h === 'string' && /^[\w.@-]{1,64}$/.test(h) ? h : 'api';
}

export interface ApiDeps {
  token: string;
  store: MasterStore;
  keys: KeyManager;
  hub: MinionHub;
  jobs: JobManager;
  events: EventBus;
  log: Logger;
  fingerprint: string;
  defaultTimeout: number;
  results: StateResultStore;
  states: StateService;
  files: FileServer;
}

const errorSchema = {
  type: 'object',
  properties: { code: { type: 'string' }, message: { type: 'string' }, diagnostics: { type: 'array' } },
  required: ['code', 'message'],
} as const;

const keySelect = {
  type: 'object',
  properties: {
    match: { type: 'string', description: 'glob of minion ids; omit with all=true' },
    all: { type: 'boolean' },
    include_rejected: { type: 'boolean' },
    include_accepted: { type: 'boolean' },
    include_denied: { type: 'boolean' },
  },
  additionalProperties: false,
} as const;

const jobBody = {
  type: 'object',
  required: ['tgt', 'fun'],
  additionalProperties: false,
  properties: {
    tgt: { anyOf: [{ type: 'string', minLength: 1 }, { type: 'array', items: { type: 'string' } }] },
    tgt_type: { type: 'string', enum: [...TARGET_TYPES] },
    fun: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]*\\.[A-Za-z_][A-Za-z0-9_]*$' },
    arg: { type: 'array' },
    kwarg: { type: 'object' },
    timeout: { type: 'number', minimum: 0 },
    batch: { anyOf: [{ type: 'string' }, { type: 'integer', minimum: 1 }] },
    wait: { type: 'boolean', description: 'hold the request until the job is done or timed out' },
  },
} as const;

const jobsQuery = {
  type: 'object',
  properties: {
    function: { type: 'string' },
    target: { type: 'string' },
    minion: { type: 'string' },
    since: { type: 'string', description: 'ISO 8601 time' },
    until: { type: 'string', description: 'ISO 8601 time' },
    limit: { type: 'integer', minimum: 1, maximum: 10000 },
  },
} as const;

/** The operator API: JSON over HTTP, token in `Authorization: Bearer <token>`. */
export async function buildApi(deps: ApiDeps): Promise<FastifyInstance> {
  const app = Fastify({ logger: false, bodyLimit: 4 * 1024 * 1024 });
  const docs: RouteDoc[] = [];
  const route = <T = unknown>(doc: RouteDoc, handler: (req: FastifyRequest) => Promise<T> | T) => {
    docs.push(doc);
    app.route({
      method: doc.method,
      url: doc.url,
      schema: { ...doc.schema, response: { '4xx': errorSchema, '5xx': errorSchema } },
      handler: async (req) => handler(req),
    });
  };

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

  route({ method: 'GET', url: '/v1/keys', summary: 'List minion keys by state' }, () => {
    const keys = deps.keys.list();
    const by: Record<KeyState, string[]> = { accepted: [], pending: [], rejected: [], denied: [] };
    for (const k of keys) by[k.state].push(k.minion);
    return { ...by, keys: keys.map(({ pub: _p, ...rest }) => rest) };
  });

  route({ method: 'GET', url: '/v1/keys/finger', summary: 'Fingerprints of the master and of minion keys' }, () => ({
    master: deps.fingerprint,
    keys: deps.keys.list().map((k) => ({ minion: k.minion, state: k.state, fingerprint: k.fingerprint })),
  }));

  route(
    {
      method: 'POST',
      url: '/v1/keys/:action',
      summary: 'Accept, reject or delete keys',
      schema: {
        params: { type: 'object', properties: { action: { type: 'string', enum: ['accept', 'reject', 'delete'] } } },
        body: keySelect,
      },
    },
    (req) => {
      const { action } = req.params as { action: 'accept' | 'reject' | 'delete' };
      const b = (req.body ?? {}) as {
        match?: string;
        all?: boolean;
        include_rejected?: boolean;
        include_accepted?: boolean;
        include_denied?: boolean;
      };
      if (!b.all && !b.match) {
        throw masterErrors.make('BRINE_ERR_MASTER_BAD_REQUEST', { detail: 'name a minion id (glob) or all=true' });
      }
      const match = b.all ? undefined : b.match;
      let from: KeyState[];
      let to: KeyState | 'deleted';
      if (action === 'accept') {
        from = ['pending', ...(b.include_rejected ? (['rejected'] as const) : []), ...(b.include_denied ? (['denied'] as const) : [])];
        to = 'accepted';
      } else if (action === 'reject') {
        from = ['pending', ...(b.include_accepted ? (['accepted'] as const) : []), ...(b.include_denied ? (['denied'] as const) : [])];
        to = 'rejected';
      } else {
        from = ['pending', 'accepted', 'rejected', 'denied'];
        to = 'deleted';
      }
      const changed = deps.keys.change(match, from, to);
      for (const c of changed) if (c.from === 'accepted') deps.hub.disconnect(c.minion);
      return { changed };
    },
  );

  route({ method: 'GET', url: '/v1/minions', summary: 'Known minions: connected, last seen, grains' }, () => {
    const accepted = new Set(deps.keys.acceptedIds());
    return {
      minions: deps.store.listMinions().map((m) => ({
        id: m.minion,
        accepted: accepted.has(m.minion),
        connected: deps.hub.sessions.has(m.minion),
        last_seen: deps.hub.sessions.has(m.minion) ? new Date().toISOString() : m.last_seen,
        grains: m.grains,
      })),
    };
  });

  route(
    { method: 'POST', url: '/v1/jobs', summary: 'Run a function on targeted minions', schema: { body: jobBody } },
    async (req) => {
      const b = req.body as {
        tgt: string | string[];
        tgt_type?: TargetType;
        fun: string;
        arg?: unknown[];
        kwarg?: Record<string, unknown>;
        timeout?: number;
        batch?: string | number;
        wait?: boolean;
      };
      const timeout = b.timeout ?? deps.defaultTimeout;
      const published = deps.jobs.publish({ ...b, timeout, user: requestUser(req.headers['x-brine-user']) });
      if (!b.wait) return { ...published, timeout, done: false };
      const report = await deps.jobs.wait(published.jid, b.batch !== undefined ? 86400 : timeout);
      return { ...published, timeout, ...report };
    },
  );

  route(
    { method: 'GET', url: '/v1/jobs', summary: 'Past jobs, newest first', schema: { querystring: jobsQuery } },
    (req) => {
      const q = req.query as { function?: string; target?: string; minion?: string; since?: string; until?: string; limit?: number };
      const iso = (s?: string) => {
        if (s === undefined) return undefined;
        const t = Date.parse(s);
        if (Number.isNaN(t)) throw masterErrors.make('BRINE_ERR_MASTER_BAD_REQUEST', { detail: `bad time '${s}'` });
        return new Date(t).toISOString();
      };
      return {
        jobs: deps.store.listJobs({
          fun: q.function,
          target: q.target,
          minion: q.minion,
          since: iso(q.since),
          until: iso(q.until),
          limit: q.limit,
        }),
      };
    },
  );

  route({ method: 'GET', url: '/v1/jobs/active', summary: 'Jobs connected minions are still running' }, () => ({
    active: deps.jobs.active(),
  }));

  route(
    {
      method: 'GET',
      url: '/v1/jobs/:jid',
      summary: 'One job with its returns and the minions that did not return',
      schema: {
        params: { type: 'object', properties: { jid: { type: 'string', pattern: JID_PATTERN.source } } },
        querystring: { type: 'object', properties: { wait: { type: 'number', minimum: 0 } } },
      },
    },
    async (req) => {
      const { jid } = req.params as { jid: string };
      const { wait } = req.query as { wait?: number };
      const report = wait ? await deps.jobs.wait(jid, wait) : deps.jobs.report(jid);
      if (!report) throw masterErrors.make('BRINE_ERR_MASTER_NOT_FOUND', { what: `job ${jid}` });
      return report;
    },
  );

  const statesQuery = {
    type: 'object',
    properties: {
      minion: { type: 'string' },
      id: { type: 'string', description: 'state ID or name' },
      failed: { type: 'boolean' },
      changed: { type: 'boolean' },
      since: { type: 'string', description: '7d, 12h, 30m or an ISO 8601 time' },
      jid: { type: 'string' },
      limit: { type: 'integer', minimum: 1, maximum: 100000 },
    },
  } as const;

  route(
    {
      method: 'GET',
      url: '/v1/jobs/:jid/states',
      summary: 'State results of one job as stored (in run order per minion)',
      schema: {
        params: { type: 'object', properties: { jid: { type: 'string', pattern: JID_PATTERN.source } } },
        querystring: { type: 'object', properties: { minion: { type: 'string' } } },
      },
    },
    (req) => {
      const { jid } = req.params as { jid: string };
      const { minion } = req.query as { minion?: string };
      if (!deps.store.getJob(jid)) throw masterErrors.make('BRINE_ERR_MASTER_NOT_FOUND', { what: `job ${jid}` });
      return { jid, states: deps.results.ofJob(jid, minion) };
    },
  );

  route(
    { method: 'GET', url: '/v1/states', summary: 'Stored state results: by minion, state ID or name, failed, changed, since', schema: { querystring: statesQuery } },
    (req) => {
      const q = req.query as { minion?: string; id?: string; failed?: boolean; changed?: boolean; since?: string; jid?: string; limit?: number };
      let sinceJid: string | undefined;
      if (q.since !== undefined) {
        const t = parseSince(q.since);
        if (!t) throw masterErrors.make('BRINE_ERR_MASTER_BAD_REQUEST', { detail: `bad time '${q.since}': use 7d, 12h, 30m or an ISO 8601 time` });
        sinceJid = jidFromTime(t);
      }
      const states = deps.results.query({
        ...(q.minion ? { minion: q.minion } : {}),
        ...(q.id ? { id: q.id } : {}),
        ...(q.failed ? { failed: true } : {}),
        ...(q.changed ? { changed: true } : {}),
        ...(q.jid ? { jid: q.jid } : {}),
        ...(sinceJid ? { sinceJid } : {}),
        ...(q.limit ? { limit: q.limit } : {}),
      });
      return { states, minions: [...new Set(states.map((s) => s.minion))].sort() };
    },
  );

  route({ method: 'GET', url: '/v1/states/last', summary: 'The last highstate of each minion (not test runs), with counts' }, () => ({
    last: deps.results.lastHighstates(),
  }));

  dataRoutes(route, deps);

  route({ method: 'GET', url: '/v1/stats', summary: 'Counters of the minion channel and the bus' }, () => ({
    ...deps.hub.stats,
    events_fired: deps.events.counts.fired,
    schema_version: deps.store.schemaVersion,
    ...deps.states.stats,
    files_served: deps.files.served,
    files_refused: deps.files.refused,
  }));

  docs.push({
    method: 'GET',
    url: '/v1/events',
    summary: 'Server-sent events stream of the event bus (text/event-stream), filtered by tag glob',
    schema: { querystring: { type: 'object', properties: { tag: { type: 'string' } } } },
  });
  app.get('/v1/events', (req, reply) => {
    const { tag } = req.query as { tag?: string };
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    res.write(': subscribed\n\n');
    const off = deps.events.subscribe(tag || '*', (ev) => {
      res.write(`event: brine\ndata: ${JSON.stringify(ev)}\n\n`);
    });
    const keepalive = setInterval(() => res.write(': keepalive\n\n'), 15_000);
    req.raw.on('close', () => {
      clearInterval(keepalive);
      off();
    });
  });

  const openapi = buildOpenApi(docs);
  app.get('/v1/openapi.json', async () => openapi);
  return app;
}

