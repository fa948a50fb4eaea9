import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createLogger } from '@brine/core';
import { MASTER_DEFAULTS, type MasterConfig } from '../../src/config.js';
import { loadMasterTops } from '../../src/master-tops.js';
import { StateService } from '../../src/state-service.js';

/**
 * The SQL ext_pillar cases' expectation (golden/ext-pillar-sql/salt.json): the rows, Salt's
 * sql_base queries over them and the pillar Salt folded them to (recorded with the Salt oracle).
 */
export const SQL_GOLDEN = JSON.parse(readFileSync(path.join(import.meta.dirname, '..', 'golden', 'ext-pillar-sql', 'salt.json'), 'utf8')) as {
  rows: unknown[][];
  queries: { list: unknown[]; named: Record<string, unknown> };
  salt: Record<string, unknown>;
};

/** A state service with no pillar roots and `cfg` (the ext_pillar and its server). */
export async function pillarService(cfg: Partial<MasterConfig>): Promise<StateService> {
  const config = { ...MASTER_DEFAULTS, pillar_roots: {}, ...cfg } as MasterConfig;
  return new StateService(config, await loadMasterTops(config.master_tops, config.master_tops_dirs), createLogger({ level: 'silent' }));
}
