import { formatExplain, type Explanation } from '@brine/bindings';
import { errorLines, type Grains } from '@brine/core';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { forbidden, identityOf, seer } from '../auth/access.js';
import { mayRun } from '../auth/permissions.js';
import { masterErrors } from '../errors.js';
import type { MinionHub } from '../hub.js';
import type { KeyManager } from '../keys.js';
import type { StateService } from '../state-service.js';
import type { StoreBackend } from '../store-backend.js';
import type { MinionRow } from '../store.js';
import type { ClusterLink } from '../cluster.js';
import type { JobManager } from '../jobs.js';
import { askWithMjs, type AskHost, type TargetType } from '@brine/compiler';
import { askWithMine, type MineService } from '../mine.js';
import { formatSources, pillarSources } from '../ext-pillar/assemble.js';
import { minionParam, nullableStr, obj, responses, str, strList } from './schemas.js';
import { setImmediate as nextTurn } from 'node:timers/promises';

export interface MinionRouteDeps {
  keys: KeyManager;
  hub: MinionHub;
  store: StoreBackend;
  cluster?: ClusterLink;
  states: StateService;
  jobs: Pick<JobManager, 'resolve'>;
  mine?: MineService;
}

/**
 * The minions the master knows, and one minion's data as the master compiles it: its pillar
 * (classic pillar with bindings on top), why a bound name has its value, and `validate`.
 */
export async function minionRoutes(app: FastifyInstance, deps: MinionRouteDeps): Promise<void> {
  /** The grains an accepted minion last reported. */
  const grainsOf = async (id: string): Promise<Grains> => {
    if (!(await deps.keys.acceptedIds()).includes(id)) throw masterErrors.make('BRINE_ERR_MASTER_NOT_FOUND', { what: `accepted minion '${id}'` });
    return deps.hub.grainsOf(id);
  };
  listRoutes(app, deps);
  pillarRoutes(app, deps, grainsOf);
  validateRoute(app, deps, grainsOf);
}

const minionsQuery = {
  type: 'object',
  properties: {
    limit: { type: 'integer', minimum: 1, maximum: 10000, description: 'a page of at most this many (by id); the answer says `next` and `total`' },
    offset: { type: 'integer', minimum: 0, description: 'skip this many (page numbers)' },
    after: { type: 'string', description: 'only ids after this one: the `next` of the previous page' },
    grains: { type: 'string', description: 'only these grains, comma-separated (empty: none); all when absent' },
    id: { type: 'string', description: 'only this minion' },
    tgt: { type: 'string', description: 'only the accepted minions this target matches' },
    tgt_type: { type: 'string' },
  },
} as const;

interface MinionsQuery {
  limit?: number;
  offset?: number;
  after?: string;
  grains?: string;
  id?: string;
  tgt?: string;
  tgt_type?: string;
}

/** Rows read per turn of the event loop when every minion is asked for. */
const ROWS_PER_TURN = 2000;

/** Ids per store query when a target picks the rows (keeps under both backends' parameter limits). */
const IDS_PER_QUERY = 500;

interface MinionsPage {
  rows: MinionRow[];
  total: number;
  next: string | null;
}

/** The minions a restricted user may see among `rows` (an admin sees them all: no filter is passed). */
type Visible = (rows: MinionRow[]) => Promise<MinionRow[]>;

/**
 * The rows a minions request asks for, the count of all that match, and the cursor of the next
 * page: for an admin, pages come from the store (10,000 minions need not be read to show 100); a
 * target's matches, and every minion a restricted user may see, are paged here, so that `total`
 * and `next` count only the minions the caller sees.
 */
async function minionsPage(deps: MinionRouteDeps, q: MinionsQuery, visible?: Visible): Promise<MinionsPage> {
  if (q.tgt === undefined && q.id === undefined) {
    if (visible) return pageOf(await visible(await allMinions(deps)), q);
    if (q.limit === undefined && q.offset === undefined && q.after === undefined) {
      const rows = await allMinions(deps);
      return { rows, total: rows.length, next: null };
    }
    // one row more than the page tells whether another page follows
    const rows = await deps.store.listMinions({ after: q.after, offset: q.offset, limit: q.limit === undefined ? undefined : q.limit + 1 });
    const more = q.limit !== undefined && rows.length > q.limit;
    if (more) rows.pop();
    return { rows, total: await deps.store.countMinions(), next: more ? rows[rows.length - 1]!.minion : null };
  }
  const ids = q.id !== undefined ? [q.id] : await deps.jobs.resolve(q.tgt!, (q.tgt_type ?? 'glob') as TargetType);
  const known: MinionRow[] = [];
  for (let i = 0; i < ids.length; i += IDS_PER_QUERY) known.push(...(await deps.store.listMinions({ ids: ids.slice(i, i + IDS_PER_QUERY) })));
  return pageOf(visible ? await visible(known) : known, q);
}

/** Every minion of the store, read a page a turn (not 10,000 rows at once), in the store's order. */
async function allMinions(deps: MinionRouteDeps): Promise<MinionRow[]> {
  const rows: MinionRow[] = [];
  for (;;) {
    const page = await deps.store.listMinions({ after: rows.length ? rows[rows.length - 1]!.minion : undefined, limit: ROWS_PER_TURN });
    for (const r of page) rows.push(r);
    if (page.length < ROWS_PER_TURN) return rows;
    await nextTurn();
  }
}

/** The page `q` asks for among `known` (sorted here by id), their count and the next page's cursor. */
function pageOf(known: MinionRow[], q: MinionsQuery): MinionsPage {
  known.sort((a, b) => (a.minion < b.minion ? -1 : a.minion > b.minion ? 1 : 0));
  const from = q.after !== undefined ? known.findIndex((m) => m.minion > q.after!) : 0;
  const start = (from < 0 ? known.length : from) + (q.offset ?? 0);
  const rows = known.slice(start, q.limit === undefined ? undefined : start + q.limit);
  const more = start + rows.length < known.length;
  return { rows, total: known.length, next: more && q.limit !== undefined ? rows[rows.length - 1]!.minion : null };
}

/**
 * The minions among `rows` the caller may see (some permission of theirs targets it), judged on
 * the grains hub.grainsOf would give (a session's live grains, else the stored ones: the row's,
 * not one store read per minion), a turn of the event loop every ROWS_PER_TURN minions.
 */
function visibleTo(req: FastifyRequest, hub: MinionHub): Visible {
  return async (rows) => {
    const stored = new Map(rows.map((r) => [r.minion, r.grains]));
    const sees = seer(req, async (id) => {
      const live = hub.sessions.get(id)?.grains;
      return live && Object.keys(live).length ? live : (stored.get(id) ?? hub.grainsOf(id));
    });
    const out: MinionRow[] = [];
    for (const [i, r] of rows.entries()) {
      if (await sees(r.minion)) out.push(r);
      if (i % ROWS_PER_TURN === ROWS_PER_TURN - 1) await nextTurn();
    }
    return out;
  };
}

/** The grains a page asked for: all, or only the named ones (a list page needs two, not 200). */
function pickGrains(grains: Record<string, unknown>, names: string[] | undefined): Record<string, unknown> {
  if (!names) return grains;
  const out: Record<string, unknown> = {};
  for (const n of names) if (Object.hasOwn(grains, n)) out[n] = grains[n];
  return out;
}

/** The minions the master knows (a page of them), and those a target matches. */
function listRoutes(app: FastifyInstance, deps: MinionRouteDeps): void {
  app.get(
    '/v1/minions',
    {
      schema: {
        summary: 'Known minions: connected, last seen, grains; all of them, or a page (limit with offset or after)',
        tags: ['minions'],
        querystring: minionsQuery,
        response: responses(
          obj({
            minions: {
              type: 'array',
              items: obj({
                id: str,
                accepted: { type: 'boolean' },
                connected: { type: 'boolean' },
                master: nullableStr,
                last_seen: nullableStr,
                grains: obj(),
              }),
            },
            total: { type: 'integer' },
            next: nullableStr,
          }),
        ),
      },
    },
    async (req) => {
      const q = req.query as MinionsQuery;
      // a user sees only the minions some permission of theirs targets, and counts only those
      const { rows, total, next } = await minionsPage(deps, q, identityOf(req).admin ? undefined : visibleTo(req, deps.hub));
      const accepted = new Set(await deps.keys.acceptedIds());
      const names = q.grains === undefined ? undefined : q.grains.split(',').filter(Boolean);
      // in a cluster a minion connected to another master is connected too
      const elsewhere = deps.cluster ? await deps.cluster.presence() : {};
      const now = new Date().toISOString();
      return {
        minions: rows.map((m) => {
          const connected = deps.hub.sessions.has(m.minion) || elsewhere[m.minion] !== undefined;
          return {
            id: m.minion,
            accepted: accepted.has(m.minion),
            connected,
            ...(deps.cluster ? { master: deps.hub.sessions.has(m.minion) ? deps.cluster.id : (elsewhere[m.minion] ?? null) } : {}),
            last_seen: connected ? now : m.last_seen,
            grains: pickGrains(m.grains, names),
          };
        }),
        total,
        next,
      };
    },
  );

  app.get(
    '/v1/targets',
    {
      schema: {
        summary: 'The accepted minions a target expression matches (the matchers of brine run)',
        tags: ['minions'],
        querystring: { type: 'object', required: ['tgt'], properties: { tgt: { type: 'string' }, tgt_type: { type: 'string' } } },
        response: responses(obj({ minions: strList })),
      },
    },
    async (req) => {
      const q = req.query as { tgt: string; tgt_type?: string };
      const sees = seer(req, (id) => deps.hub.grainsOf(id));
      const out = [];
      for (const id of await deps.jobs.resolve(q.tgt, (q.tgt_type ?? 'glob') as TargetType)) if (await sees(id)) out.push(id);
      return { minions: out };
    },
  );
}

/** A minion's pillar, and why a bound name has its value. */
function pillarRoutes(app: FastifyInstance, deps: MinionRouteDeps, grainsOf: (id: string) => Promise<Grains>): void {
  app.get(
    '/v1/minions/:minion/pillar',
    {
      schema: {
        summary: "A minion's pillar: classic pillar, then its bindings on top",
        tags: ['minions'],
        params: minionParam,
        response: responses(obj({ minion: str, pillar: obj(), errors: strList })),
      },
    },
    async (req) => {
      const { minion } = req.params as { minion: string };
      const g = await grainsOf(minion);
      if (!mayRun(identityOf(req), 'pillar.items', minion, g))
        throw forbidden(req, `read the pillar of ${minion}`, `'pillar.items' on a target matching ${minion}`);
      const p = await deps.states.pillar(minion, g);
      return { minion, pillar: p.pillar, errors: errorLines(p.diagnostics) };
    },
  );

  app.get(
    '/v1/minions/:minion/pillar/explain',
    {
      schema: {
        summary: 'Which binding or pillar source (pillar_roots, an ext_pillar) gave a pillar name its value for a minion, and what it shadowed',
        tags: ['minions'],
        params: minionParam,
        querystring: { type: 'object', required: ['name'], properties: { name: { type: 'string', minLength: 1 } } },
        response: responses(
          obj({ minion: str, name: str, bound: { type: 'boolean' }, explain: obj(), sources: { type: 'array', items: obj() }, text: str, errors: strList }),
        ),
      },
    },
    async (req) => {
      const { minion } = req.params as { minion: string };
      const { name } = req.query as { name: string };
      const g = await grainsOf(minion);
      if (!mayRun(identityOf(req), 'pillar.items', minion, g))
        throw forbidden(req, `read the pillar of ${minion}`, `'pillar.items' on a target matching ${minion}`);
      const p = await deps.states.pillar(minion, g);
      // a prefix (`apache`) explains every bound name under it, as the text does
      const explain: Record<string, Explanation> = {};
      for (const [n, e] of Object.entries(p.explain)) if (n === name || n.startsWith(`${name}.`)) explain[n] = e;
      // names no binding gave: the pillar source (pillar_roots, an ext_pillar) each value came from
      const sources = pillarSources(p.pillar, p.parts ?? [], name).filter((f) => !(f.name in p.explain));
      const bound = Object.keys(explain).length > 0;
      const text = bound || sources.length === 0 ? formatExplain(p.explain, name) + formatSources(sources) : formatSources(sources);
      return { minion, name, bound: bound || sources.length > 0, explain, sources, text, errors: errorLines(p.diagnostics) };
    },
  );
}

/** `brine validate`: the parameters each state of some SLS files uses for a minion. */
function validateRoute(app: FastifyInstance, deps: MinionRouteDeps, grainsOf: (id: string) => Promise<Grains>): void {
  app.post(
    '/v1/validate',
    {
      schema: {
        summary: 'Render SLS files for a minion with recording params: the parameters each state uses (brine validate)',
        tags: ['minions'],
        body: {
          type: 'object',
          required: ['minion', 'sls'],
          additionalProperties: false,
          properties: {
            minion: { type: 'string', minLength: 1 },
            sls: {
              anyOf: [
                { type: 'string', minLength: 1 },
                { type: 'array', items: { type: 'string' }, minItems: 1 },
              ],
            },
            saltenv: { type: 'string' },
          },
        },
        response: responses(obj({ minion: str, report: obj(), diagnostics: { type: 'array', items: obj() }, failed: { type: 'boolean' } })),
      },
    },
    async (req) => {
      const b = req.body as { minion: string; sls: string | string[]; saltenv?: string };
      const sls = (Array.isArray(b.sls) ? b.sls : [b.sls])
        .flatMap((s) => s.split(','))
        .map((s) => s.trim())
        .filter(Boolean);
      const grains = await grainsOf(b.minion);
      // host calls of the templates are asked of that minion while it is connected
      const toHost: AskHost = (calls) => deps.hub.askHost(b.minion, calls);
      const ask = askWithMjs(deps.mine ? askWithMine(deps.mine, b.minion, toHost) : toHost, deps.states.mjs);
      const report = await deps.states.validate(b.minion, grains, sls, b.saltenv ?? 'base', ask);
      return { minion: b.minion, ...report };
    },
  );
}
