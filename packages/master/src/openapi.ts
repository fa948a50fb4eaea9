/**
 * @fastify/swagger is not installed, so the OpenAPI document is built here from the same JSON
 * schemas the routes validate with.
 */
export interface RouteDoc {
  method: 'GET' | 'POST';
  url: string;
  summary: string;
  schema?: { body?: object; querystring?: object; params?: object };
}

export function buildOpenApi(routes: RouteDoc[]): object {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    const p = r.url.replace(/:(\w+)/g, '{$1}');
    const parameters: unknown[] = [];
    for (const [where, schema] of [
      ['path', r.schema?.params],
      ['query', r.schema?.querystring],
    ] as const) {
      const props = (schema as { properties?: Record<string, unknown> } | undefined)?.properties ?? {};
      for (const [name, s] of Object.entries(props)) {
        parameters.push({ name, in: where, required: where === 'path', schema: s });
      }
    }
    const op: Record<string, unknown> = {
      summary: r.summary,
      parameters,
      responses: {
        '200': { description: 'OK', content: { 'application/json': {} } },
        '400': { description: 'coded error', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
        '401': { description: 'missing or wrong token' },
      },
    };
    if (r.schema?.body) op.requestBody = { required: true, content: { 'application/json': { schema: r.schema.body } } };
    paths[p] = { ...(paths[p] ?? {}), [r.method.toLowerCase()]: op };
  }
  return {
    openapi: '3.0.3',
    info: { title: 'Brine master API', version: '1' },
    components: {
      securitySchemes: { token: { type: 'http', scheme: 'bearer' } },
      schemas: {
        Error: {
          type: 'object',
          properties: { code: { type: 'string' }, message: { type: 'string' }, diagnostics: { type: 'array' } },
        },
      },
    },
    security: [{ token: [] }],
    paths,
  };
}
