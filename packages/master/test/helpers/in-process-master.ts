import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Test } from 'tap';
import { createLogger } from '@brine/core';
import { loadMasterConfig, type MasterConfig } from '../../src/config.js';
import { startMaster, type Master } from '../../src/master.js';

/**
 * A real master in the test's own process on a temp dir, for fastify `inject` tests of the API:
 * started before the file's tests, closed and removed after them. `extra` adds master options.
 */
export function inProcessMaster(t: Test, name: string, extra: Partial<MasterConfig> = {}): { get(): Master } {
  const dir = mkdtempSync(path.join(os.tmpdir(), `brine-${name}-`));
  let master: Master | undefined;
  t.before(async () => {
    const config = loadMasterConfig(undefined, {
      data_dir: path.join(dir, 'master'),
      interface: '127.0.0.1',
      port: 0,
      api_port: 0,
      compile_workers: 0,
      file_roots: { base: [path.join(dir, 'states')] },
      pillar_roots: {},
      ...extra,
    });
    master = await startMaster(config, createLogger({ level: 'silent' }));
  });
  t.teardown(async () => {
    await master?.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    get(): Master {
      if (!master) throw new Error('the master has not started');
      return master;
    },
  };
}
