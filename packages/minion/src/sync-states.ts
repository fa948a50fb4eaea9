import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { BrineError, type StateRegistry } from '@brine/core';
import { customModuleName, loadCustomModules, registryWith } from '@brine/states';
import type { MasterRequest } from './remote-file-client.js';

interface ListedFile {
  path: string;
  hash: string;
}

export interface SyncedStates {
  /** `states.<name>` of each module added, changed or removed (Salt's sync_states answer). */
  changed: string[];
  registry: StateRegistry;
}

function sha256(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

/**
 * Salt's `saltutil.sync_states`: the `_states/` folder of the master's tree for `saltenv` is
 * mirrored into `<dataDir>/extmods/states` (each file's bytes checked against the master's
 * sha256, files gone from the master removed), then the modules are loaded over the shipped ones.
 */
export async function syncStates(request: MasterRequest, dataDir: string, base: StateRegistry, saltenv = 'base', jid?: string): Promise<SyncedStates> {
  const dir = path.join(dataDir, 'extmods', 'states');
  const listed = ((await request('file.list', { prefix: '_states', saltenv, ...(jid ? { jid } : {}) })) as ListedFile[])
    // only direct children that name a module, as Salt's loader reads the folder
    .filter((f) => f.path.split('/').length === 2 && customModuleName(f.path) !== undefined);
  mkdirSync(dir, { recursive: true });
  const changed: string[] = [];
  const keep = new Set<string>();
  const files: { path: string; hash: string }[] = [];
  for (const f of listed) {
    const base = path.basename(f.path);
    const local = path.join(dir, base);
    keep.add(base);
    let have: string | undefined;
    try {
      have = sha256(readFileSync(local));
    } catch {
      have = undefined;
    }
    if (have !== f.hash) {
      const reply = (await request('file.get', { path: f.path, saltenv, ...(jid ? { jid } : {}) })) as { hash: string; data?: string } | null;
      if (!reply || reply.data === undefined) throw new BrineError('BRINE_ERR_MINION_FILE', `the master sent no data for salt://${f.path}`);
      const data = Buffer.from(reply.data, 'base64');
      if (sha256(data) !== reply.hash) throw new BrineError('BRINE_ERR_MINION_FILE', `salt://${f.path}: the bytes received do not match their hash`);
      const tmp = `${local}.${process.pid}.tmp`;
      writeFileSync(tmp, data);
      renameSync(tmp, local);
      changed.push(`states.${customModuleName(base)}`);
    }
    files.push({ path: local, hash: f.hash });
  }
  for (const name of readdirSync(dir)) {
    if (keep.has(name)) continue;
    rmSync(path.join(dir, name), { force: true });
    const mod = customModuleName(name);
    if (mod) changed.push(`states.${mod}`);
  }
  const registry = files.length === 0 ? base : registryWith(await loadCustomModules(files), base);
  return { changed: changed.sort(), registry };
}
