import { formatExplain, type Explanation } from '@brine/bindings';
import { errorLines, type Grains } from '@brine/core';
import type { FastifyRequest } from 'fastify';
import { masterErrors } from './errors.js';
import type { MinionHub } from './hub.js';
import type { KeyManager } from './keys.js';
import type { RouteDoc } from './openapi.js';
import type { StateService } from './state-service.js';

type Route = <T = unknown>(doc: RouteDoc, handler: (req: FastifyRequest) => Promise<T> | T) => void;

export interface DataRouteDeps {
  keys: KeyManager;
  hub: MinionHub;
  states: StateService;
}

const minionParam = { type: 'object', properties: { minion: { type: 'string', minLength: 1 } } } as const;

/**
 * Routes about one minion's data as the master compiles it: its pillar (classic pillar with
 * bindings on top), why a bound name has its value, and `validate` of SLS files for it.
 */
export function dataRoutes(route: Route, deps: DataRouteDeps): void {
  /** The grains an accepted minion last reported. */
  const grainsOf = (id: string): Grains => {
    if (!deps.keys.acceptedIds().includes(id)) throw masterErrors.make('BRINE_ERR_MASTER_NOT_FOUND', { what: `accepted minion '${id}'` });
    return deps.hub.grainsOf(id);
  };

  route(
    { method: 'GET', url: '/v1/minions/:minion/pillar', summary: "A minion's pillar: classic pillar, then its bindings on top", schema: { params: minionParam } },
    (req) => {
      const { minion } = req.params as { minion: string };
      const p = deps.states.pillar(minion, grainsOf(minion));
      return { minion, pillar: p.pillar, errors: errorLines(p.diagnostics) };
    },
  );

  route(
    {
      method: 'GET',
      url: '/v1/minions/:minion/pillar/explain',
      summary: 'Which binding gave a pillar name its value for a minion, and what it shadowed',
      schema: {
        params: minionParam,
        querystring: { type: 'object', required: ['name'], properties: { name: { type: 'string', minLength: 1 } } },
      },
    },
    (req) => {
      const { minion } = req.params as { minion: string };
      const { name } = req.query as { name: string };
      const p = deps.states.pillar(minion, grainsOf(minion));
      // a prefix (`apache`) explains every bound name under it, as the text does
      const explain: Record<string, Explanation> = {};
      for (const [n, e] of Object.entries(p.explain)) if (n === name || n.startsWith(`${name}.`)) explain[n] = e;
      return { minion, name, bound: Object.keys(explain).length > 0, explain, text: formatExplain(p.explain, name), errors: errorLines(p.diagnostics) };
    },
  );

  route(
    {
      method: 'POST',
      url: '/v1/validate',
      summary: 'Render SLS files for a minion with recording params: the parameters each state uses (brine validate)',
      schema: {
        body: {
          type: 'object',
          required: ['minion', 'sls'],
          additionalProperties: false,
          properties: {
            minion: { type: 'string', minLength: 1 },
            sls: { anyOf: [{ type: 'string', minLength: 1 }, { type: 'array', items: { type: 'string' }, minItems: 1 }] },
            saltenv: { type: 'string' },
          },
        },
      },
    },
    (req) => {
      const b = req.body as { minion: string; sls: string | string[]; saltenv?: string };
      const sls = (Array.isArray(b.sls) ? b.sls : [b.sls]).flatMap((s) => s.split(',')).map((s) => s.trim()).filter(Boolean);
      return { minion: b.minion, ...deps.states.validate(b.minion, grainsOf(b.minion), sls, b.saltenv ?? 'base') };
    },
  );
}
