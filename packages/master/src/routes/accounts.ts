import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { masterErrors } from '../errors.js';
import { sourceKey } from '../guess-limiter.js';
import { audit, identityOf, type AccessDeps } from '../auth/access.js';
import { parseTtl } from '../auth/accounts.js';
import { hashPassword } from '../auth/passwords.js';
import { maySpecial, type Identity } from '../auth/permissions.js';

const str = { type: 'string', maxLength: 1024 } as const;
const NAME = '^[A-Za-z0-9_][A-Za-z0-9_.@-]{0,63}$';

/**
 * Signing in (the console's form, `POST /v1/login`): a token, or a user name and password;
 * wrong ones back off per source like wrong bearer tokens, and each attempt is audited.
 */
export async function signIn(req: FastifyRequest, reply: FastifyReply, deps: AccessDeps): Promise<Identity | undefined> {
  const b = (req.body ?? {}) as { token?: string; username?: string; password?: string; eauth?: string };
  const source = sourceKey(req.ip);
  const wait = deps.guesses.retryAfter(source);
  if (wait !== undefined) {
    deps.refuse(reply.header('retry-after', String(wait)), 429, 'BRINE_ERR_MASTER_AUTH_BACKOFF', { source, seconds: wait });
    return undefined;
  }
  const user = b.username ?? deps.userHint(req);
  const who =
    b.username !== undefined
      ? await deps.accounts.signIn(b.username, b.password ?? '', b.eauth)
      : b.token
        ? await deps.accounts.fromToken(b.token.trim(), user)
        : undefined;
  const how = b.username !== undefined ? (b.eauth ?? 'password') : 'token';
  audit(deps, req, { user: who?.user ?? user, action: 'signin', args: { eauth: how }, outcome: who ? 'ok' : 'refused 401' });
  if (!who) {
    deps.guesses.failed(source);
    if (b.username !== undefined) deps.refuse(reply, 401, 'BRINE_ERR_MASTER_BAD_LOGIN', { user });
    else deps.refuse(reply, 401, 'BRINE_ERR_MASTER_UNAUTHORIZED');
    return undefined;
  }
  deps.guesses.succeeded(source);
  return who;
}

const isAdmin = (who: Identity) => maySpecial(who, '@wheel');

/** Accounts, API tokens and the audit trail: /v1/login, /v1/tokens, /v1/users, /v1/audit. */
export async function accountRoutes(app: FastifyInstance, deps: AccessDeps): Promise<void> {
  const tokenBody = {
    type: 'object',
    properties: { username: str, password: str, eauth: { type: 'string', enum: ['local', 'ldap'] }, ttl: { type: 'string', maxLength: 32 } },
  };
  const newToken = async (who: Identity, ttl: string | number | undefined) => {
    const seconds = ttl === undefined ? deps.accounts.maxTtl : parseTtl(ttl);
    if (seconds === undefined) throw masterErrors.make('BRINE_ERR_MASTER_BAD_REQUEST', { detail: `bad ttl '${ttl}' (like 8h, 30m, 1d or seconds)` });
    const { token, row } = await deps.accounts.createToken(who, seconds);
    return { token, ...row };
  };

  // Salt's /login: a user name and password for an expiring token
  app.post(
    '/v1/login',
    { schema: { summary: 'Sign in with a user name and password for an API token', tags: ['accounts'], body: tokenBody } },
    async (req, reply) => {
      const b = req.body as { username?: string; ttl?: string | number };
      if (b.username === undefined) throw masterErrors.make('BRINE_ERR_MASTER_BAD_REQUEST', { detail: 'username and password are required' });
      const who = await signIn(req, reply, deps);
      if (!who) return reply;
      const t = await newToken(who, b.ttl);
      audit(deps, req, { user: who.user, action: 'token.create', target: t.id, args: { ttl: b.ttl ?? null }, outcome: 'ok' });
      return t;
    },
  );

  app.get('/v1/whoami', { schema: { summary: 'Who this token or session is', tags: ['accounts'] } }, async (req) => {
    const who = identityOf(req);
    return { user: who.user, eauth: who.eauth, groups: who.groups, admin: who.admin };
  });

  app.get('/v1/tokens', { schema: { summary: 'API tokens: your own, or every one with @wheel', tags: ['accounts'] } }, async (req) => {
    const who = identityOf(req);
    return { tokens: await deps.accounts.store.listTokens(isAdmin(who) ? undefined : who.user) };
  });

  app.post('/v1/tokens', { schema: { summary: 'A new API token for the caller', tags: ['accounts'], body: tokenBody } }, async (req) => {
    const who = identityOf(req);
    return newToken(who, (req.body as { ttl?: string | number }).ttl);
  });

  app.post('/v1/tokens/:id/revoke', { schema: { summary: 'Revoke a token now', tags: ['accounts'] } }, async (req) => {
    const who = identityOf(req);
    const { id } = req.params as { id: string };
    const row = await deps.accounts.store.getToken(id);
    if (!row || (!isAdmin(who) && row.username !== who.user)) throw masterErrors.make('BRINE_ERR_MASTER_NOT_FOUND', { what: `token ${id}` });
    return { revoked: await deps.accounts.store.revokeToken(id) };
  });

  app.get('/v1/users', { schema: { summary: 'Local users', tags: ['accounts'] } }, async () => ({ users: await deps.accounts.store.listUsers() }));

  const userBody = {
    type: 'object',
    required: ['password'],
    properties: { name: { type: 'string', pattern: NAME }, password: { type: 'string', minLength: 8, maxLength: 1024 } },
  };
  app.post('/v1/users', { schema: { summary: 'Add a local user', tags: ['accounts'], body: { ...userBody, required: ['name', 'password'] } } }, async (req) => {
    const b = req.body as { name: string; password: string };
    if (await deps.accounts.store.getUser(b.name))
      throw masterErrors.make('BRINE_ERR_MASTER_BAD_REQUEST', { detail: `user '${b.name}' exists (brine user passwd changes the password)` });
    await deps.accounts.store.putUser(b.name, await hashPassword(b.password));
    return { name: b.name };
  });
  app.post('/v1/users/:name/password', { schema: { summary: "Change a local user's password", tags: ['accounts'], body: userBody } }, async (req) => {
    const { name } = req.params as { name: string };
    if (!(await deps.accounts.store.getUser(name))) throw masterErrors.make('BRINE_ERR_MASTER_NO_USER', { user: name });
    await deps.accounts.store.putUser(name, await hashPassword((req.body as { password: string }).password));
    return { name };
  });
  app.post('/v1/users/:name/remove', { schema: { summary: 'Remove a local user (their tokens are revoked)', tags: ['accounts'] } }, async (req) => {
    const { name } = req.params as { name: string };
    if (!(await deps.accounts.store.removeUser(name))) throw masterErrors.make('BRINE_ERR_MASTER_NO_USER', { user: name });
    return { removed: name };
  });

  app.get(
    '/v1/audit',
    {
      schema: {
        summary: 'The audit trail, newest first',
        tags: ['accounts'],
        querystring: { type: 'object', properties: { user: str, action: str, since: str, limit: { type: 'integer', minimum: 1, maximum: 5000 } } },
      },
    },
    async (req) => {
      const q = req.query as { user?: string; action?: string; since?: string; limit?: number };
      let since: string | undefined;
      if (q.since !== undefined) {
        const t = Date.parse(q.since);
        if (Number.isNaN(t)) throw masterErrors.make('BRINE_ERR_MASTER_BAD_REQUEST', { detail: `bad time '${q.since}'` });
        since = new Date(t).toISOString();
      }
      return { audit: await deps.accounts.store.queryAudit({ ...q, since }) };
    },
  );
}
