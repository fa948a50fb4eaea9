import { TARGET_TYPES, type TargetType } from '@brine/compiler';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { masterErrors } from '../errors.js';
import { auditNote, checkPublish, forbidden, identityOf, mayJobs, seer } from '../auth/access.js';
import type { JobManager } from '../jobs.js';
import type { StoreBackend } from '../store-backend.js';
import { returnEntryJson, reportStream } from './report-json.js';
import { anyValue, jidParam, obj, responses, str, strList } from './schemas.js';

export interface JobRouteDeps {
  jobs: JobManager;
  store: StoreBackend;
  defaultTimeout: number;
  hub: { grainsOf(id: string): Promise<Record<string, unknown>> };
}

const jobBody = {
  type: 'object',
  required: ['tgt', 'fun'],
  additionalProperties: false,
  properties: {
    tgt: {
      anyOf: [
        { type: 'string', minLength: 1 },
        { type: 'array', items: { type: 'string' } },
      ],
    },
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
    parent: { type: 'string', description: 'only the jobs the steps of this orchestration published' },
  },
} as const;

const jobRow = obj({
  jid: str,
  fun: str,
  arg: { type: 'array', items: anyValue },
  kwarg: obj(),
  target: anyValue,
  tgt_type: str,
  user: str,
  created_at: str,
  expected: strList,
});

/** A job's report: one return per minion that answered, the minions that did not. */
const report = obj({
  jid: str,
  minions: strList,
  job: jobRow,
  returns: obj({}, 'minion id -> {success, retcode, return}'),
  missing: { type: 'array', items: obj({ minion: str, reason: str }) },
  done: { type: 'boolean' },
  planned: obj({}, 'while the job runs: minion id -> the number of states its compile planned'),
});

/** A report is sent as text made in slices (reportJson), so fastify does not serialise it again. */
const JSON_TYPE = 'application/json; charset=utf-8';

/** The operator's name the CLI sends; anything odd is recorded as plain 'api'. */
export function requestUser(h: string | string[] | undefined): string {
  return typeof h === 'string' && /^[\w.@-]{1,64}$/.test(h) ? h : 'api';
}

/** Publish jobs, wait for them, query past and active ones. */
/** Past jobs by the query's filters; without @jobs, those whose minions the user may all target. */
async function listJobs(req: FastifyRequest, deps: JobRouteDeps) {
  const q = req.query as { function?: string; target?: string; minion?: string; since?: string; until?: string; limit?: number; parent?: string };
  const iso = (s?: string) => {
    if (s === undefined) return undefined;
    const t = Date.parse(s);
    if (Number.isNaN(t)) throw masterErrors.make('BRINE_ERR_MASTER_BAD_REQUEST', { detail: `bad time '${s}'` });
    return new Date(t).toISOString();
  };
  const jobs = await deps.store.listJobs({
    fun: q.function,
    target: q.target,
    minion: q.minion,
    since: iso(q.since),
    until: iso(q.until),
    limit: q.limit,
    parent: q.parent,
  });
  if (mayJobs(req)) return jobs;
  const sees = seer(req, (id) => deps.hub.grainsOf(id));
  const out = [];
  for (const j of jobs) if (j.expected.length > 0 && (await Promise.all(j.expected.map(sees))).every(Boolean)) out.push(j);
  return out;
}

export async function jobRoutes(app: FastifyInstance, deps: JobRouteDeps): Promise<void> {
  app.post(
    '/v1/jobs',
    {
      schema: {
        summary: 'Run a function on targeted minions',
        tags: ['jobs'],
        body: jobBody,
        response: responses(obj({ jid: str, minions: strList, timeout: { type: 'number' } })),
      },
    },
    async (req, reply) => {
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
      const who = identityOf(req);
      const published = await deps.jobs.publish({
        ...b,
        timeout,
        user: who.user,
        authorize: (minions) => checkPublish(req, b.fun, minions, (id) => deps.hub.grainsOf(id)),
      });
      auditNote(req, { jid: published.jid });
      if (!b.wait) return { ...published, timeout, done: false };
      await deps.jobs.settled(published.jid, b.batch !== undefined ? 86400 : timeout);
      const done = (await deps.jobs.reportAs(published.jid, returnEntryJson))!;
      return reply.type(JSON_TYPE).send(reportStream({ ...published, timeout, ...done }));
    },
  );

  app.get(
    '/v1/jobs',
    {
      schema: {
        summary: 'Past jobs, newest first',
        tags: ['jobs'],
        querystring: jobsQuery,
        response: responses(obj({ jobs: { type: 'array', items: jobRow } })),
      },
    },
    async (req) => ({ jobs: await listJobs(req, deps) }),
  );

  app.get(
    '/v1/jobs/active',
    {
      schema: {
        summary: 'Jobs connected minions are still running',
        tags: ['jobs'],
        response: responses(obj({ active: { type: 'array', items: obj({ jid: str, fun: str, running: strList }) } })),
      },
    },
    async () => ({ active: await deps.jobs.active() }),
  );

  app.get(
    '/v1/jobs/:jid',
    {
      schema: {
        summary: 'One job with its returns and the minions that did not return',
        tags: ['jobs'],
        params: jidParam,
        querystring: { type: 'object', properties: { wait: { type: 'number', minimum: 0 } } },
        response: responses(report),
      },
    },
    async (req, reply) => {
      const { jid } = req.params as { jid: string };
      const { wait } = req.query as { wait?: number };
      if (wait) await deps.jobs.settled(jid, wait);
      const found = await deps.jobs.reportAs(jid, returnEntryJson);
      if (!found) throw masterErrors.make('BRINE_ERR_MASTER_NOT_FOUND', { what: `job ${jid}` });
      if (!mayJobs(req)) {
        const sees = seer(req, (id) => deps.hub.grainsOf(id));
        for (const m of found.job.expected) if (!(await sees(m))) throw forbidden(req, `see job ${jid}`, `@jobs, or a permission targeting ${m}`);
      }
      return reply.type(JSON_TYPE).send(reportStream(found));
    },
  );
}
