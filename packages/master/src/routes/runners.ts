import type { FastifyInstance } from 'fastify';
import type { StartedRunner } from '../orchestrations.js';
import type { RunnerRequest } from '../runners.js';
import { requestUser } from './jobs.js';
import { anyValue, obj, responses, str } from './schemas.js';

export interface RunnerRouteDeps {
  runners: { start: (req: RunnerRequest) => Promise<StartedRunner> };
}

const runnerBody = {
  type: 'object',
  required: ['fun'],
  additionalProperties: false,
  properties: {
    fun: { type: 'string', minLength: 1 },
    arg: { type: 'array' },
    kwarg: { type: 'object' },
    wait: { type: 'boolean', description: 'hold the request until the runner is done and answer its return' },
  },
} as const;

/** Master-side runners (Salt's salt-run): `state.orchestrate` and its alias `state.orch`. */
export async function runnerRoutes(app: FastifyInstance, deps: RunnerRouteDeps): Promise<void> {
  app.post(
    '/v1/runner',
    {
      schema: {
        summary: 'Run a runner on the master (state.orchestrate); its jid at once, or its return with wait',
        tags: ['jobs'],
        body: runnerBody,
        response: responses(obj({ jid: str, success: { type: 'boolean' }, return: anyValue })),
      },
    },
    async (req) => {
      const b = req.body as { fun: string; arg?: unknown[]; kwarg?: Record<string, unknown>; wait?: boolean };
      const started = await deps.runners.start({ fun: b.fun, arg: b.arg ?? [], kwarg: b.kwarg ?? {}, user: requestUser(req.headers['x-brine-user']) });
      if (!b.wait) {
        // nobody waits: a failure is stored with the job, never an unhandled rejection
        started.done.catch(() => undefined);
        return { jid: started.jid };
      }
      const out = await started.done;
      return { jid: out.jid, success: out.success, return: out.ret };
    },
  );
}
