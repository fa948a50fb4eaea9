import { formatExplain, type Explanation } from '@brine/bindings';
import { errorLines, type Grains } from '@brine/core';
import type { FastifyInstance } from 'fastify';
import { masterErrors } from '../errors.js';
import type { MinionHub } from '../hub.js';
import type { KeyManager } from '../keys.js';
import type { StateService } from '../state-service.js';
import type { StoreBackend } from '../store-backend.js';
import type { ClusterLink } from '../cluster.js';
import type { JobManager } from '../jobs.js';
import type { TargetType } from '@brine/compiler';
import { minionParam, nullableStr, obj, responses, str, strList } from './schemas.js';

export interface MinionRouteDeps {
  keys: KeyManager;
  hub: MinionHub;
  store: StoreBackend;
  cluster?: ClusterLink;
  states: StateService;
  jobs: Pick<JobManager, 'resolve'>;
}

/**
 * The minions the master knows, and one minion's data as the master compiles it: its pillar
 * (classic pillar with bindings on top), why a bound name has its value, and `validate`.
 */
export async function minionRoutes(app: FastifyInstance, deps: MinionRouteDeps): Promise<void> {
  /** The grains an accepted minion last reported. */
  const grainsOf = async (id: string): Promise<Grains> => {
    if (!(await deps.keys.acceptedIds()).includes(id)) throw masterErrors.make('BRINE_ERR_MASTER_NOT_FOUND', { what: `accepted minion '${id}'` });
    return deps.hub.grainsOf(id);
  };
  listRoutes(app, deps);
  pillarRoutes(app, deps, grainsOf);
  validateRoute(app, deps, grainsOf);
}

/** The minions the master knows, and those a target matches. */
function listRoutes(app: FastifyInstance, deps: MinionRouteDeps): void {
  app.get(
    '/v1/minions',
    {
      schema: {
        summary: 'Known minions: connected, last seen, grains',
        tags: ['minions'],
        response: responses(
          obj({
            minions: {
              type: 'array',
              items: obj({
                id: str,
                accepted: { type: 'boolean' },
                connected: { type: 'boolean' },
                master: nullableStr,
                last_seen: nullableStr,
                grains: obj(),
              }),
            },
          }),
        ),
      },
    },
    async () => {
      const accepted = new Set(await deps.keys.acceptedIds());
      // in a cluster a minion connected to another master is connected too
      const elsewhere = deps.cluster ? await deps.cluster.presence() : {};
      return {
        minions: (await deps.store.listMinions()).map((m) => {
          const connected = deps.hub.sessions.has(m.minion) || elsewhere[m.minion] !== undefined;
          return {
            id: m.minion,
            accepted: accepted.has(m.minion),
            connected,
            ...(deps.cluster ? { master: deps.hub.sessions.has(m.minion) ? deps.cluster.id : (elsewhere[m.minion] ?? null) } : {}),
            last_seen: connected ? new Date().toISOString() : m.last_seen,
            grains: m.grains,
          };
        }),
      };
    },
  );

  app.get(
    '/v1/targets',
    {
      schema: {
        summary: 'The accepted minions a target expression matches (the matchers of brine run)',
        tags: ['minions'],
        querystring: { type: 'object', required: ['tgt'], properties: { tgt: { type: 'string' }, tgt_type: { type: 'string' } } },
        response: responses(obj({ minions: strList })),
      },
    },
    async (req) => {
      const q = req.query as { tgt: string; tgt_type?: string };
      return { minions: await deps.jobs.resolve(q.tgt, (q.tgt_type ?? 'glob') as TargetType) };
    },
  );
}

/** A minion's pillar, and why a bound name has its value. */
function pillarRoutes(app: FastifyInstance, deps: MinionRouteDeps, grainsOf: (id: string) => Promise<Grains>): void {
  app.get(
    '/v1/minions/:minion/pillar',
    {
      schema: {
        summary: "A minion's pillar: classic pillar, then its bindings on top",
        tags: ['minions'],
        params: minionParam,
        response: responses(obj({ minion: str, pillar: obj(), errors: strList })),
      },
    },
    async (req) => {
      const { minion } = req.params as { minion: string };
      const p = await deps.states.pillar(minion, await grainsOf(minion));
      return { minion, pillar: p.pillar, errors: errorLines(p.diagnostics) };
    },
  );

  app.get(
    '/v1/minions/:minion/pillar/explain',
    {
      schema: {
        summary: 'Which binding gave a pillar name its value for a minion, and what it shadowed',
        tags: ['minions'],
        params: minionParam,
        querystring: { type: 'object', required: ['name'], properties: { name: { type: 'string', minLength: 1 } } },
        response: responses(obj({ minion: str, name: str, bound: { type: 'boolean' }, explain: obj(), text: str, errors: strList })),
      },
    },
    async (req) => {
      const { minion } = req.params as { minion: string };
      const { name } = req.query as { name: string };
      const p = await deps.states.pillar(minion, await grainsOf(minion));
      // a prefix (`apache`) explains every bound name under it, as the text does
      const explain: Record<string, Explanation> = {};
      for (const [n, e] of Object.entries(p.explain)) if (n === name || n.startsWith(`${name}.`)) explain[n] = e;
      return { minion, name, bound: Object.keys(explain).length > 0, explain, text: formatExplain(p.explain, name), errors: errorLines(p.diagnostics) };
    },
  );
}

/** `brine validate`: the parameters each state of some SLS files uses for a minion. */
function validateRoute(app: FastifyInstance, deps: MinionRouteDeps, grainsOf: (id: string) => Promise<Grains>): void {
  app.post(
    '/v1/validate',
    {
      schema: {
        summary: 'Render SLS files for a minion with recording params: the parameters each state uses (brine validate)',
        tags: ['minions'],
        body: {
          type: 'object',
          required: ['minion', 'sls'],
          additionalProperties: false,
          properties: {
            minion: { type: 'string', minLength: 1 },
            sls: {
              anyOf: [
                { type: 'string', minLength: 1 },
                { type: 'array', items: { type: 'string' }, minItems: 1 },
              ],
            },
            saltenv: { type: 'string' },
          },
        },
        response: responses(obj({ minion: str, report: obj(), diagnostics: { type: 'array', items: obj() }, failed: { type: 'boolean' } })),
      },
    },
    async (req) => {
      const b = req.body as { minion: string; sls: string | string[]; saltenv?: string };
      const sls = (Array.isArray(b.sls) ? b.sls : [b.sls])
        .flatMap((s) => s.split(','))
        .map((s) => s.trim())
        .filter(Boolean);
      const grains = await grainsOf(b.minion);
      // host calls of the templates are asked of that minion while it is connected
      const report = await deps.states.validate(b.minion, grains, sls, b.saltenv ?? 'base', (calls) => deps.hub.askHost(b.minion, calls));
      return { minion: b.minion, ...report };
    },
  );
}
