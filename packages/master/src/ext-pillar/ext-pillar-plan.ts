import path from 'node:path';
import { isDict } from '@brine/core';
import type { MasterConfig } from '../config.js';
import { masterErrors } from '../errors.js';
import { parseCommandPillar, runPillarCommand } from './cmd-pillar.js';
import { Limiter, type ExtSource } from './ext-source.js';
import { fileTreePillar } from './file-tree-pillar.js';
import { MERGE_STRATEGIES } from './merge-strategy.js';
import { parsePgConnection, PgPillar } from './postgres-pillar.js';
import { MysqlPillar, parseMysqlConnection } from './mysql-pillar.js';
import type { SqlPillarDb } from './lazy-pool.js';
import { parseSqlQueries } from './sql-rows.js';

/** One `ext_pillar` entry in config order: git sources (the next `count` trees of GitPillar) or another source. */
export type PlanEntry = { kind: 'git'; count: number } | { kind: 'source'; source: ExtSource };

/** A command's or a minion's file tree's output is bounded: past this, the source fails. */
const MAX_OUTPUT = 4 << 20;
/** Commands (and queries) running at once for the whole fleet. */
const CONCURRENCY = 8;

const fail = (detail: string) => masterErrors.make('BRINE_ERR_MASTER_CONFIG', { file: '-', detail: `ext_pillar: ${detail}` });

/** The entries as `{KIND: value}` pairs; a malformed entry is refused at start. */
export function extPillarEntries(config: MasterConfig): Array<[string, unknown]> {
  return config.ext_pillar.map((entry) => {
    if (!isDict(entry) || Object.keys(entry).length !== 1) throw fail(`expected {KIND: ...}, got ${JSON.stringify(entry)}`);
    return Object.entries(entry)[0]!;
  });
}

/**
 * The ext_pillar entries in config order, each kind checked at start (an unknown kind or option
 * is refused: ignoring it would serve minions a pillar without it).
 */
export function extPillarPlan(config: MasterConfig, gitCounts: number[]): PlanEntry[] {
  if (!(MERGE_STRATEGIES as readonly string[]).includes(config.pillar_source_merging_strategy)) {
    throw masterErrors.make('BRINE_ERR_MASTER_CONFIG', {
      file: '-',
      detail: `pillar_source_merging_strategy: '${config.pillar_source_merging_strategy}' (known: ${MERGE_STRATEGIES.join(', ')})`,
    });
  }
  const limiter = new Limiter(CONCURRENCY);
  const timeoutMs = config.ext_pillar_timeout * 1000;
  // one server (and pool) per kind for every entry of it
  const dbs = new Map<string, SqlPillarDb>();
  const sqlDb = (kind: 'postgres' | 'mysql'): SqlPillarDb => {
    let db = dbs.get(kind);
    if (!db) {
      db = kind === 'postgres' ? new PgPillar(parsePgConnection(config.postgres), timeoutMs) : new MysqlPillar(parseMysqlConnection(config.mysql), timeoutMs);
      dbs.set(kind, db);
    }
    return db;
  };
  let git = 0;
  return extPillarEntries(config).map(([kind, value]): PlanEntry => {
    switch (kind) {
      case 'git':
        return { kind: 'git', count: gitCounts[git++] ?? 0 };
      case 'cmd_yaml':
      case 'cmd_json': {
        if (typeof value !== 'string' || !value.trim()) throw fail(`${kind}: expected a command line`);
        const format = kind === 'cmd_yaml' ? 'yaml' : 'json';
        // the program only: arguments may carry what should not be shown
        const label = `ext_pillar:${kind} ${value.trim().split(/\s+/)[0]}`;
        const fetch = async (id: string) =>
          parseCommandPillar(await limiter.run(() => runPillarCommand(value, id, { timeoutMs, maxBytes: MAX_OUTPUT })), format);
        return { kind: 'source', source: { label, fetch } };
      }
      case 'file_tree':
        return { kind: 'source', source: fileTreeSource(value, config.nodegroups) };
      case 'postgres':
      case 'mysql':
        return { kind: 'source', source: sqlSource(kind, value, sqlDb(kind), limiter) };
      default:
        throw fail(`'${kind}' is not supported (supported: git, cmd_yaml, cmd_json, file_tree, postgres, mysql)`);
    }
  });
}

/** An SQL entry: Salt's sql_base queries, each checked against the dialect at start. */
function sqlSource(kind: string, value: unknown, db: SqlPillarDb, limiter: Limiter): ExtSource {
  let queries;
  try {
    queries = parseSqlQueries(value, kind);
  } catch (e) {
    throw fail((e as Error).message);
  }
  for (const q of queries) db.check(q.query);
  return { label: `ext_pillar:${kind} ${db.location}`, fetch: (id) => limiter.run(() => db.fetch(id, queries)), close: () => db.close() };
}

const FILE_TREE_KEYS = ['root_dir', 'follow_dir_links', 'keep_newline', 'debug', 'render_default', 'renderer_blacklist', 'renderer_whitelist', 'template'];

/** file_tree with Salt's options, raw files only: `template: true` (rendering the files) is refused. */
function fileTreeSource(value: unknown, nodegroups: Record<string, string | string[]>): ExtSource {
  if (!isDict(value)) throw fail('file_tree: expected {root_dir: ..., ...}');
  for (const k of Object.keys(value)) if (!FILE_TREE_KEYS.includes(k)) throw fail(`file_tree: unknown option '${k}' (${FILE_TREE_KEYS.join(', ')})`);
  const root = value.root_dir;
  if (typeof root !== 'string' || !path.isAbsolute(root))
    throw fail('file_tree: root_dir must be an absolute path (a path relative to pillar_roots is not supported)');
  if (value.template === true) throw fail('file_tree: template: true is not supported; Brine serves the files raw (their text as values)');
  const keep = value.keep_newline ?? false;
  if (typeof keep !== 'boolean' && !(Array.isArray(keep) && keep.every((g) => typeof g === 'string')))
    throw fail('file_tree: keep_newline is true, false or a list of globs');
  const o = { rootDir: root, followDirLinks: value.follow_dir_links === true, keepNewline: keep, maxBytes: MAX_OUTPUT, nodegroups };
  return { label: `ext_pillar:file_tree ${root}`, fetch: (id, grains) => fileTreePillar(id, grains, o) };
}
