import { readFileSync } from 'node:fs';
import { packageFile } from '@brine/core';
import type { FastifyInstance } from 'fastify';
import path from 'node:path';
import { masterErrors } from '../errors.js';
import { SESSION_COOKIE } from '../ui-sessions.js';
import type { AccessDeps } from '../auth/access.js';
import { signIn } from './accounts.js';

/** The console's files ship in the package (packages/master/ui): no CDN, no separate web server. */
const uiFile = (name: string): string => path.join(packageFile('master', 'ui'), name);
const ASSETS: Record<string, string> = {
  'app.js': 'text/javascript; charset=utf-8',
  'app.css': 'text/css; charset=utf-8',
  'icon.svg': 'image/svg+xml',
};

/** The web console at /ui: a page, its assets, and signing in and out. */
/** `tokenFile`: where this master keeps its API token (the sign-in page names it, never its contents). */
export async function uiRoutes(app: FastifyInstance, deps: AccessDeps, tokenFile?: string): Promise<void> {
  const page = readFileSync(uiFile('index.html'));
  const assets = new Map(Object.keys(ASSETS).map((f) => [f, readFileSync(uiFile(f))]));

  app.get('/ui', { schema: { hide: true } }, async (_req, reply) => reply.redirect('/ui/'));
  app.get('/ui/', { schema: { hide: true } }, async (_req, reply) => reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').send(page));
  app.get('/ui/assets/:file', { schema: { hide: true } }, async (req, reply) => {
    const { file } = req.params as { file: string };
    const body = assets.get(file);
    if (!body) throw masterErrors.make('BRINE_ERR_MASTER_NOT_FOUND', { what: `asset ${file}` });
    return reply.type(ASSETS[file]!).send(body);
  });

  app.post(
    '/ui/login',
    {
      schema: {
        hide: true,
        body: {
          type: 'object',
          anyOf: [{ required: ['token'] }, { required: ['username', 'password'] }],
          properties: {
            token: { type: 'string', maxLength: 1024 },
            username: { type: 'string', maxLength: 256 },
            password: { type: 'string', maxLength: 1024 },
            eauth: { type: 'string', enum: ['local', 'ldap'] },
          },
        },
      },
    },
    async (req, reply) => {
      const who = await signIn(req, reply, deps);
      if (!who) return reply;
      const { id, session } = deps.sessions.create(who);
      reply.setCookie(SESSION_COOKIE, id, { httpOnly: true, sameSite: 'strict', path: '/', secure: req.protocol === 'https' });
      return { csrf: session.csrf, user: who.user };
    },
  );

  app.get('/ui/session', { schema: { hide: true } }, async (req, reply) => {
    const s = deps.sessions.get(req.cookies[SESSION_COOKIE]);
    if (!s) {
      const e = masterErrors.make('BRINE_ERR_MASTER_UNAUTHORIZED');
      // a path, not the token: the operator signing in needs to know which file to read
      return reply.code(401).send({ code: e.code, message: e.message, ...(tokenFile ? { token_file: tokenFile } : {}) });
    }
    return { csrf: s.csrf, user: s.identity.user };
  });

  app.post('/ui/logout', { schema: { hide: true } }, async (req, reply) => {
    deps.sessions.end(req.cookies[SESSION_COOKIE]);
    reply.clearCookie(SESSION_COOKIE, { path: '/' });
    return { ok: true };
  });
}
