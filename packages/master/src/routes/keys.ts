import { isValidMinionId, type KeyState } from '@brine/protocol';
import type { FastifyInstance } from 'fastify';
import { masterErrors } from '../errors.js';
import type { MinionHub } from '../hub.js';
import type { KeyManager } from '../keys.js';
import { obj, responses, str, strList } from './schemas.js';

export interface KeyRouteDeps {
  keys: KeyManager;
  hub: MinionHub;
  fingerprint: string;
  /** Where minions connect (the channel's interface and bound port), for `brine bootstrap`. */
  minionChannel: { interface: string; port: number };
}

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

const keyRow = obj({ minion: str, state: str, fingerprint: str });

/** salt-key over HTTP: list, fingerprints, accept/reject/delete. */
export async function keyRoutes(app: FastifyInstance, deps: KeyRouteDeps): Promise<void> {
  app.get(
    '/v1/keys',
    {
      schema: {
        summary: 'List minion keys by state',
        tags: ['keys'],
        response: responses(obj({ accepted: strList, pending: strList, rejected: strList, denied: strList, keys: { type: 'array', items: keyRow } })),
      },
    },
    async () => {
      const keys = await deps.keys.list();
      const by: Record<KeyState, string[]> = { accepted: [], pending: [], rejected: [], denied: [] };
      for (const k of keys) by[k.state].push(k.minion);
      return { ...by, keys: keys.map(({ pub: _p, ...rest }) => rest) };
    },
  );

  app.get(
    '/v1/keys/finger',
    {
      schema: {
        summary: 'Fingerprints of the master and of minion keys',
        tags: ['keys'],
        response: responses(obj({ master: str, interface: str, port: { type: 'integer' }, keys: { type: 'array', items: keyRow } })),
      },
    },
    async () => ({
      master: deps.fingerprint,
      ...deps.minionChannel,
      keys: (await deps.keys.list()).map((k) => ({ minion: k.minion, state: k.state, fingerprint: k.fingerprint })),
    }),
  );

  app.post(
    '/v1/keys/preseed',
    {
      schema: {
        summary: "Accept a minion's public key brought from its host (no pending step)",
        tags: ['keys'],
        body: {
          type: 'object',
          required: ['minion', 'pub'],
          properties: { minion: str, pub: { type: 'string', maxLength: 4096 } },
          additionalProperties: false,
        },
        response: responses(obj({ minion: str, fingerprint: str, changed: { type: 'boolean' } })),
      },
    },
    async (req) => {
      const { minion, pub } = req.body as { minion: string; pub: string };
      if (!isValidMinionId(minion)) throw masterErrors.make('BRINE_ERR_MASTER_BAD_REQUEST', { detail: `'${minion}' is not a valid minion id` });
      return { minion, ...(await deps.keys.preseed(minion, pub)) };
    },
  );

  app.post(
    '/v1/keys/:action',
    {
      schema: {
        summary: 'Accept, reject or delete keys',
        tags: ['keys'],
        params: { type: 'object', properties: { action: { type: 'string', enum: ['accept', 'reject', 'delete'] } } },
        body: keySelect,
        response: responses(obj({ changed: { type: 'array', items: obj({ minion: str, fingerprint: str, from: str, to: str }) } })),
      },
    },
    async (req) => {
      const { action } = req.params as { action: 'accept' | 'reject' | 'delete' };
      const b = (req.body ?? {}) as { match?: string; all?: boolean; include_rejected?: boolean; include_accepted?: boolean; include_denied?: boolean };
      if (!b.all && !b.match) {
        throw masterErrors.make('BRINE_ERR_MASTER_BAD_REQUEST', { detail: 'name a minion id (glob) or all=true' });
      }
      const match = b.all ? undefined : b.match;
      const { from, to } = keyAction(action, b);
      const changed = await deps.keys.change(match, from, to);
      for (const c of changed) if (c.from === 'accepted') deps.hub.disconnect(c.minion);
      return { changed };
    },
  );
}

/** The key states an action moves from, and to (Salt's salt-key and wheel key.* flags). */
export function keyAction(
  action: 'accept' | 'reject' | 'delete',
  b: { include_rejected?: boolean; include_accepted?: boolean; include_denied?: boolean },
): { from: KeyState[]; to: KeyState | 'deleted' } {
  if (action === 'accept') {
    return { from: ['pending', ...(b.include_rejected ? (['rejected'] as const) : []), ...(b.include_denied ? (['denied'] as const) : [])], to: 'accepted' };
  }
  if (action === 'reject') {
    return { from: ['pending', ...(b.include_accepted ? (['accepted'] as const) : []), ...(b.include_denied ? (['denied'] as const) : [])], to: 'rejected' };
  }
  return { from: ['pending', 'accepted', 'rejected', 'denied'], to: 'deleted' };
}
