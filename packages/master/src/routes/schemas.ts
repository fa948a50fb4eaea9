import { JID_PATTERN } from '@brine/protocol';

/** JSON schemas the route plugins share: validation in, serialisation out, the OpenAPI document. */

export const errorSchema = {
  type: 'object',
  description: 'a coded error',
  properties: {
    code: { type: 'string' },
    message: { type: 'string' },
    diagnostics: { type: 'array', items: { type: 'object', additionalProperties: true } },
  },
  required: ['code', 'message'],
} as const;

/** Any JSON object: declared fields are documented, the rest pass through unchanged. */
export function obj(properties: Record<string, object> = {}, description?: string): object {
  return { type: 'object', additionalProperties: true, properties, ...(description ? { description } : {}) };
}

export const anyValue = {} as const;
export const str = { type: 'string' } as const;
export const strList = { type: 'array', items: str } as const;
export const nullableStr = { type: 'string', nullable: true } as const;

export const jidParam = { type: 'object', properties: { jid: { type: 'string', pattern: JID_PATTERN.source } } } as const;
export const minionParam = { type: 'object', properties: { minion: { type: 'string', minLength: 1 } } } as const;

/** A response section: the 200 body plus the coded errors every route may answer. */
export function responses(ok: object): Record<string, object> {
  return { 200: ok, '4xx': errorSchema, '5xx': errorSchema };
}

/** One stored state result as the store answers it. */
export const stateRow = obj({
  jid: str,
  minion: str,
  run_num: { type: 'integer' },
  tag: str,
  id: str,
  name: str,
  state: str,
  fun: str,
  sls: nullableStr,
  result: { type: 'boolean', nullable: true },
  changes: obj(),
  comment: str,
  start_time: nullableStr,
  duration: { type: 'number', nullable: true },
  stored_at: str,
});
