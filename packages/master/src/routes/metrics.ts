import type { FastifyInstance } from 'fastify';
import type { MasterMetrics } from '../metrics.js';

export interface MetricsRouteDeps {
  metrics: MasterMetrics;
}

/** Prometheus text format; the token (or a console session) is needed unless metrics_public. */
export async function metricsRoutes(app: FastifyInstance, deps: MetricsRouteDeps): Promise<void> {
  app.get('/metrics', { schema: { summary: 'Prometheus metrics of this master', tags: ['metrics'] } }, async (_req, reply) => {
    const text = await deps.metrics.text();
    return reply.type(deps.metrics.registry.contentType).send(text);
  });
}
