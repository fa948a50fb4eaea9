import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { BusEvent, EventBus } from '../event-bus.js';
import type { FileServer } from '../file-server.js';
import type { MinionHub } from '../hub.js';
import type { JobManager } from '../jobs.js';
import type { StateService } from '../state-service.js';
import type { StoreBackend } from '../store-backend.js';
import { obj, responses } from './schemas.js';
import { masterErrors } from '../errors.js';
import { refusedTag } from '../reactor-rules.js';
import { mayJobs, seer } from '../auth/access.js';
import { eventFilter } from '../auth/event-filter.js';

export interface EventRouteDeps {
  events: EventBus;
  hub: MinionHub;
  store: StoreBackend;
  states: StateService;
  files: FileServer;
  jobs: Pick<JobManager, 'stats' | 'acks'>;
}

/** An event as an SSE message, made once however many streams carry it. */
const messages = new WeakMap<BusEvent, string>();
function message(ev: BusEvent): string {
  let m = messages.get(ev);
  if (m === undefined) {
    m = `event: brine\ndata: ${JSON.stringify(ev)}\n\n`;
    messages.set(ev, m);
  }
  return m;
}

/** The live side of the master: the event stream and its counters. */
export async function eventRoutes(app: FastifyInstance, deps: EventRouteDeps): Promise<void> {
  app.get(
    '/v1/stats',
    {
      schema: {
        summary: 'Counters of the minion channel and the bus',
        tags: ['events'],
        response: responses(obj({ events_fired: { type: 'integer' }, schema_version: { type: 'integer' } })),
      },
    },
    async () => ({
      ...deps.hub.stats,
      ...deps.hub.guard.stats,
      events_fired: deps.events.counts.fired,
      schema_version: await deps.store.schemaVersion(),
      ...deps.states.stats,
      ...deps.jobs.stats,
      ...deps.jobs.acks.stats,
      files_served: deps.files.served,
      files_refused: deps.files.refused,
    }),
  );

  app.post(
    '/v1/events',
    {
      schema: {
        summary: "Fires an operator's event on the bus (Salt's event.send from the master side); tags under salt/ and brine/ are refused",
        tags: ['events'],
        body: { type: 'object', required: ['tag'], properties: { tag: { type: 'string' }, data: { type: 'object' } } },
        response: responses(obj({ tag: { type: 'string' } })),
      },
    },
    async (req) => {
      const { tag, data } = req.body as { tag: string; data?: Record<string, unknown> };
      const why = refusedTag(tag);
      if (why) throw masterErrors.make('BRINE_ERR_MASTER_EVENT_TAG', { tag: tag.slice(0, 80), detail: why });
      deps.events.fire(tag, { ...(data ?? {}), _stamp: new Date().toISOString() });
      return { tag };
    },
  );

  app.get(
    '/v1/reactions',
    {
      schema: {
        summary: 'Jobs the reactor published, newest first, with the event tag and chain depth of each',
        tags: ['events'],
        querystring: { type: 'object', properties: { limit: { type: 'integer', minimum: 1, maximum: 1000 } } },
      },
    },
    async (req) => ({ reactions: await deps.store.reactorJobs((req.query as { limit?: number }).limit ?? 100) }),
  );

  app.get(
    '/v1/events',
    {
      schema: {
        summary: 'Server-sent events stream of the event bus (text/event-stream), filtered by tag glob',
        tags: ['events'],
        querystring: { type: 'object', properties: { tag: { type: 'string', description: 'a glob such as brine/job/*' } } },
      },
    },
    (req, reply) => eventStream(req, reply, deps),
  );
}

/** The bus as server-sent events; without @jobs, only what the user may see, in order. */
function eventStream(req: FastifyRequest, reply: FastifyReply, deps: EventRouteDeps): void {
  const { tag } = req.query as { tag?: string };
  // without @jobs a user watches only the jobs and minions they may see
  const visible = mayJobs(req)
    ? undefined
    : eventFilter(
        seer(req, (id) => deps.hub.grainsOf(id)),
        async (jid) => (await deps.store.getJob(jid))?.expected,
      );
  let order = Promise.resolve();
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  res.write(': subscribed\n\n');
  // the events of one turn of the event loop go out in one write (10,000 returns are not 10,000 writes)
  let queued: string[] = [];
  let flush: NodeJS.Immediate | undefined;
  const send = (ev: BusEvent) => {
    queued.push(message(ev));
    flush ??= setImmediate(() => {
      flush = undefined;
      const text = queued.join('');
      queued = [];
      res.write(text);
    });
  };
  const off = deps.events.subscribe(tag || '*', (ev) => {
    if (!visible) return send(ev);
    // verdicts may wait on the store: the events keep their order
    order = order.then(async () => {
      if (await visible(ev).catch(() => false)) send(ev);
    });
  });
  const keepalive = setInterval(() => res.write(': keepalive\n\n'), 15_000);
  req.raw.on('close', () => {
    clearInterval(keepalive);
    if (flush) clearImmediate(flush);
    off();
  });
}
