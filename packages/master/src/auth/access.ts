import type { Logger } from '@brine/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { masterErrors } from '../errors.js';
import { sourceKey, type GuessLimiter } from '../guess-limiter.js';
import { CSRF_HEADER, SESSION_COOKIE, UiSessions } from '../ui-sessions.js';
import type { Accounts } from './accounts.js';
import { maySee, maySpecial, mayRun, type Identity, type Special } from './permissions.js';
import { redact } from './redact.js';
import { ROUTE_ACCESS, type RouteAccess } from './route-access.js';

const identities = new WeakMap<FastifyRequest, Identity>();
const notes = new WeakMap<FastifyRequest, Record<string, unknown>>();

/** The caller of a checked route (the access hook has run). */
export function identityOf(req: FastifyRequest): Identity {
  const who = identities.get(req);
  if (!who) throw masterErrors.make('BRINE_ERR_MASTER_UNAUTHORIZED');
  return who;
}

/** Adds to the audit record of this call (a job's jid, what was refused). */
export function auditNote(req: FastifyRequest, fields: Record<string, unknown>): void {
  notes.set(req, { ...notes.get(req), ...fields });
}

export function forbidden(req: FastifyRequest, what: string, perm: string): Error {
  const who = identityOf(req);
  auditNote(req, { refused: perm });
  return masterErrors.make('BRINE_ERR_MASTER_FORBIDDEN', { user: who.user, eauth: who.eauth, what, perm });
}

type Grains = (id: string) => Promise<Record<string, unknown>>;

/** Refuses a job unless the caller may run `fun` on every minion it targets (Salt's publish check). */
export async function checkPublish(req: FastifyRequest, fun: string, minions: string[], grainsOf: Grains): Promise<void> {
  const who = identityOf(req);
  if (who.admin) return;
  if (fun.startsWith('runner.') || fun.startsWith('wheel.')) throw forbidden(req, `run ${fun}`, `@${fun.split('.')[0]}`);
  for (const id of minions) {
    if (!mayRun(who, fun, id, await grainsOf(id))) throw forbidden(req, `run ${fun} on ${id}`, `'${fun}' on a target matching ${id}`);
  }
}

/** Whether the caller may see a minion (any permission targets it); `@jobs` sees every job. */
export function seer(req: FastifyRequest, grainsOf: Grains): (id: string) => Promise<boolean> {
  const who = identityOf(req);
  if (who.admin) return async () => true;
  return async (id) => maySee(who, id, await grainsOf(id));
}

export function mayJobs(req: FastifyRequest): boolean {
  return maySpecial(identityOf(req), '@jobs');
}

export interface AccessDeps {
  accounts: Accounts;
  sessions: UiSessions;
  guesses: GuessLimiter;
  log: Logger;
  metricsPublic?: boolean;
  refuse: (reply: FastifyReply, status: number, code: Parameters<typeof masterErrors.make>[0], args?: Record<string, string | number>) => FastifyReply;
  userHint: (req: FastifyRequest) => string;
}

function accessOf(req: FastifyRequest): RouteAccess {
  const url = req.routeOptions.url;
  // an unknown path is answered 404 only to a signed-in caller
  return (url && ROUTE_ACCESS[`${req.method === 'HEAD' ? 'GET' : req.method} ${url}`]) || { need: 'signed-in' };
}

/** Writes one audit record; a failed write is logged, never the caller's error. */
export function audit(
  deps: AccessDeps,
  req: FastifyRequest,
  rec: { user: string; action: string; target?: string | null; args?: unknown; outcome: string },
): void {
  deps.accounts.store
    .audit({
      at: new Date().toISOString(),
      username: rec.user,
      source: req.ip,
      action: rec.action,
      target: rec.target ?? null,
      args: rec.args ?? null,
      outcome: rec.outcome,
    })
    .catch((err: unknown) => deps.log.error({ event: 'audit_write_failed', err: (err as Error).message }, 'audit write failed'));
}

/** Who the caller is: a bearer token (bootstrap or a user's) or a console session; undefined answers 401. */
async function authenticate(req: FastifyRequest, reply: FastifyReply, deps: AccessDeps): Promise<Identity | FastifyReply | undefined> {
  const header = req.headers.authorization ?? '';
  const given = header.startsWith('Bearer ') ? header.slice(7).trim() : undefined;
  if (given) {
    // a source held off is not checked at all, the right token included: its guesses teach nothing
    const source = sourceKey(req.ip);
    const wait = deps.guesses.retryAfter(source);
    if (wait !== undefined) return deps.refuse(reply.header('retry-after', String(wait)), 429, 'BRINE_ERR_MASTER_AUTH_BACKOFF', { source, seconds: wait });
    const who = await deps.accounts.fromToken(given, deps.userHint(req));
    if (who) {
      deps.guesses.succeeded(source);
      return who;
    }
    deps.guesses.failed(source);
  }
  // the console: its session cookie, and for anything that changes state the CSRF header too
  const session = deps.sessions.get(req.cookies[SESSION_COOKIE]);
  if (session) {
    if (!(await deps.accounts.stillValid(session.identity))) {
      deps.sessions.end(req.cookies[SESSION_COOKIE]);
      return undefined;
    }
    if (req.method === 'GET' || req.method === 'HEAD' || UiSessions.csrfMatches(req.headers[CSRF_HEADER], session.csrf)) return session.identity;
    return deps.refuse(reply, 403, 'BRINE_ERR_MASTER_CSRF');
  }
  return undefined;
}

/**
 * The one place calls are checked: every route is in ROUTE_ACCESS (checked when it is added),
 * each request is authenticated and its route's need checked before the handler runs, and every
 * call that changes something, or was refused, is written to the audit trail when answered.
 */
export function installAccess(app: FastifyInstance, deps: AccessDeps): void {
  app.addHook('onRoute', (r) => {
    const methods = Array.isArray(r.method) ? r.method : [r.method];
    for (const m of methods) {
      if (m === 'HEAD') continue;
      if (!ROUTE_ACCESS[`${m} ${r.url}`]) throw new Error(`route ${m} ${r.url} is not in ROUTE_ACCESS (packages/master/src/auth/route-access.ts)`);
    }
  });
  app.addHook('onRequest', async (req, reply) => {
    const access = accessOf(req);
    if (access.need === 'public') return;
    if (deps.metricsPublic && req.routeOptions.url === '/metrics') return;
    const found = await authenticate(req, reply, deps);
    if (found && 'send' in found) return found;
    if (!found) return deps.refuse(reply, 401, 'BRINE_ERR_MASTER_UNAUTHORIZED');
    // the bootstrap token says only that the caller may: the name is what the CLI or console sends
    const who = found.eauth === 'bootstrap' ? { ...found, user: deps.userHint(req) } : found;
    identities.set(req, who);
    if (access.need.startsWith('@') && !maySpecial(who, access.need as Special)) {
      auditNote(req, { refused: access.need });
      return deps.refuse(reply, 403, 'BRINE_ERR_MASTER_FORBIDDEN', {
        user: who.user,
        eauth: who.eauth,
        what: `${req.method} ${req.routeOptions.url}`,
        perm: access.need,
      });
    }
  });
  app.addHook('onResponse', async (req, reply) => {
    const access = accessOf(req);
    const who = identities.get(req);
    if (!who || (!access.action && reply.statusCode !== 403)) return;
    const body = (req.body ?? {}) as Record<string, unknown>;
    const params = (req.params ?? {}) as Record<string, string>;
    let action = access.action ?? `denied ${req.method} ${req.routeOptions.url}`;
    if (action === 'key') action = `key.${params.action}`;
    if (action === 'runner' && typeof body.fun === 'string') action = `runner.${body.fun}`;
    const target = body.tgt ?? body.match ?? body.minion ?? params.minion ?? params.name ?? params.id ?? null;
    const note = notes.get(req);
    const outcome = reply.statusCode < 400 ? 'ok' : `refused ${reply.statusCode}${note?.refused ? `: missing ${String(note.refused)}` : ''}`;
    audit(deps, req, {
      user: who.user,
      action,
      target: target === null ? null : Array.isArray(target) ? target.join(',') : String(target),
      args: redact({ ...body, ...(note?.jid ? { jid: note.jid } : {}) }),
      outcome,
    });
  });
}
