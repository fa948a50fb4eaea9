/**
 * What each API route needs, in one table: the access hook refuses a route missing from it at
 * start, so a new route cannot slip in unchecked. `see` and `publish` routes are signed-in here
 * and check each minion in the handler (a user sees only the minions and jobs they may target).
 * `action` names the audit record of a call that changes something.
 */
export type Need = 'public' | 'signed-in' | 'see' | 'publish' | '@wheel' | '@runner' | '@jobs';
export interface RouteAccess {
  need: Need;
  action?: string;
}

export const ROUTE_ACCESS: Record<string, RouteAccess> = {
  'GET /v1/openapi.json': { need: 'public' },
  'GET /ui': { need: 'public' },
  'GET /ui/': { need: 'public' },
  'GET /ui/assets/:file': { need: 'public' },
  'POST /ui/login': { need: 'public' },
  'GET /ui/session': { need: 'public' },
  'POST /ui/logout': { need: 'public' },
  'POST /v1/login': { need: 'public' },
  'GET /metrics': { need: '@wheel' },
  'GET /v1/stats': { need: 'signed-in' },
  'POST /v1/events': { need: '@runner', action: 'event.send' },
  'GET /v1/reactions': { need: '@jobs' },
  'GET /v1/events': { need: 'see' },
  'GET /v1/fileserver/status': { need: 'signed-in' },
  'POST /v1/fileserver/update': { need: '@runner', action: 'fileserver.update' },
  'POST /v1/jobs': { need: 'publish', action: 'job.publish' },
  'GET /v1/jobs': { need: 'see' },
  'GET /v1/jobs/active': { need: '@jobs' },
  'GET /v1/jobs/:jid': { need: 'see' },
  'GET /v1/jobs/:jid/states': { need: 'see' },
  'GET /v1/states': { need: '@jobs' },
  'GET /v1/states/last': { need: '@jobs' },
  'GET /v1/keys': { need: '@wheel' },
  'GET /v1/keys/finger': { need: '@wheel' },
  'POST /v1/keys/preseed': { need: '@wheel', action: 'key.preseed' },
  'POST /v1/keys/:action': { need: '@wheel', action: 'key' },
  'GET /v1/minions': { need: 'see' },
  'GET /v1/targets': { need: 'see' },
  'GET /v1/minions/:minion/pillar': { need: 'see' },
  'GET /v1/minions/:minion/pillar/explain': { need: 'see' },
  'POST /v1/validate': { need: '@runner' },
  'POST /v1/runner': { need: '@runner', action: 'runner' },
  'GET /v1/whoami': { need: 'signed-in' },
  'GET /v1/tokens': { need: 'signed-in' },
  'POST /v1/tokens': { need: 'signed-in', action: 'token.create' },
  'POST /v1/tokens/:id/revoke': { need: 'signed-in', action: 'token.revoke' },
  'GET /v1/users': { need: '@wheel' },
  'POST /v1/users': { need: '@wheel', action: 'user.add' },
  'POST /v1/users/:name/password': { need: '@wheel', action: 'user.passwd' },
  'POST /v1/users/:name/remove': { need: '@wheel', action: 'user.remove' },
  'GET /v1/audit': { need: '@wheel' },
};
