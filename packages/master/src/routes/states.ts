import type { FastifyInstance } from 'fastify';
import { masterErrors } from '../errors.js';
import { forbidden, mayJobs, seer } from '../auth/access.js';
import { jidFromTime, parseSince } from '../jid.js';
import type { StoreBackend } from '../store-backend.js';
import { jidParam, obj, responses, str, stateRow, strList } from './schemas.js';

export interface StateRouteDeps {
  store: StoreBackend;
  hub: { grainsOf(id: string): Promise<Record<string, unknown>> };
}

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

const count = { type: 'integer' } as const;

/** The questions operators ask of stored state results. */
export async function stateRoutes(app: FastifyInstance, deps: StateRouteDeps): Promise<void> {
  app.get(
    '/v1/jobs/:jid/states',
    {
      schema: {
        summary: 'State results of one job as stored (in run order per minion)',
        tags: ['states'],
        params: jidParam,
        querystring: { type: 'object', properties: { minion: { type: 'string' } } },
        response: responses(obj({ jid: str, states: { type: 'array', items: stateRow } })),
      },
    },
    async (req) => {
      const { jid } = req.params as { jid: string };
      const { minion } = req.query as { minion?: string };
      const job = await deps.store.getJob(jid);
      if (!job) throw masterErrors.make('BRINE_ERR_MASTER_NOT_FOUND', { what: `job ${jid}` });
      // without @jobs, only the results of a job on minions the user may all target
      if (!mayJobs(req)) {
        const sees = seer(req, (id) => deps.hub.grainsOf(id));
        for (const m of job.expected) if (!(await sees(m))) throw forbidden(req, `see job ${jid}`, `@jobs, or a permission targeting ${m}`);
      }
      return { jid, states: await deps.store.stateResultsOf(jid, minion) };
    },
  );

  app.get(
    '/v1/states',
    {
      schema: {
        summary: 'Stored state results: by minion, state ID or name, failed, changed, since',
        tags: ['states'],
        querystring: statesQuery,
        response: responses(obj({ states: { type: 'array', items: stateRow }, minions: strList })),
      },
    },
    async (req) => {
      const q = req.query as { minion?: string; id?: string; failed?: boolean; changed?: boolean; since?: string; jid?: string; limit?: number };
      let sinceJid: string | undefined;
      if (q.since !== undefined) {
        const t = parseSince(q.since);
        if (!t) throw masterErrors.make('BRINE_ERR_MASTER_BAD_REQUEST', { detail: `bad time '${q.since}': use 7d, 12h, 30m or an ISO 8601 time` });
        sinceJid = jidFromTime(t);
      }
      const states = await deps.store.queryStates({
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

  app.get(
    '/v1/states/last',
    {
      schema: {
        summary: 'The last highstate of each minion (not test runs), with counts',
        tags: ['states'],
        response: responses(
          obj({
            last: {
              type: 'array',
              items: obj({
                minion: str,
                jid: str,
                created_at: str,
                success: { type: 'boolean', nullable: true },
                states: count,
                failed: count,
                changed: count,
              }),
            },
          }),
        ),
      },
    },
    async () => ({ last: await deps.store.lastHighstates() }),
  );
}
