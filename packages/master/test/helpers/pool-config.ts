import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MASTER_DEFAULTS, type MasterConfig } from '../../src/config.js';

/**
 * A master config for the compile pool tests, in a temp dir removed at teardown: a data dir with
 * a token, a pillar tree giving `colour: blue` to every minion, and the given state files (a
 * state root only when there are some). One worker unless `extra` says otherwise.
 */
export function poolConfig(
  t: { teardown(fn: () => void): void },
  prefix: string,
  stateFiles: Record<string, string> = {},
  extra: Partial<MasterConfig> = {},
): MasterConfig {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const dataDir = path.join(dir, 'data');
  const pillar = path.join(dir, 'pillar');
  const states = path.join(dir, 'states');
  mkdirSync(path.join(dataDir, 'pki'), { recursive: true });
  mkdirSync(pillar);
  writeFileSync(path.join(dataDir, 'api_token'), 'token\n');
  writeFileSync(path.join(pillar, 'top.sls'), "base:\n  '*':\n    - colour\n");
  writeFileSync(path.join(pillar, 'colour.sls'), 'colour: blue\n');
  for (const [name, text] of Object.entries(stateFiles)) {
    mkdirSync(states, { recursive: true });
    writeFileSync(path.join(states, name), text);
  }
  return {
    ...MASTER_DEFAULTS,
    data_dir: dataDir,
    pki_dir: path.join(dataDir, 'pki'),
    token_file: path.join(dataDir, 'api_token'),
    file_roots: Object.keys(stateFiles).length > 0 ? { base: [states] } : {},
    pillar_roots: { base: [pillar] },
    compile_workers: 1,
    ...extra,
  } as MasterConfig;
}
