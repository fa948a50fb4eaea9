import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '@brine/core';
import type { TargetType } from '@brine/compiler';
import type { MasterConfig } from './config.js';
import type { EventBus } from './event-bus.js';
import type { MinionHub } from './hub.js';
import type { JobManager } from './jobs.js';
import type { KeyManager } from './keys.js';
import { Reactor } from './reactor.js';
import { reactorRules } from './reactor-rules.js';
import type { RunRunner } from './runners.js';
import { keyAction } from './routes/keys.js';
import type { StateService } from './state-service.js';
import type { StoreBackend } from './store-backend.js';

/**
 * The master's reactor, wired to its parts: reactor files read from disk (an absolute path) or
 * the state tree (salt://), rendered on the compile workers (through the state service), jobs
 * published by the job manager, wheel key reactions on the key manager, runner reactions through
 * the master's runners. Started before the minion port opens, so the first minions' events react
 * too (their renders wait for the compile workers, which start last).
 */
export function startReactor(
  config: MasterConfig,
  d: {
    store: StoreBackend;
    events: EventBus;
    states: StateService;
    jobs: JobManager;
    keys: KeyManager;
    hub: MinionHub;
    log: Logger;
    masterId: string | null;
    runRunner?: RunRunner;
  },
): Reactor {
  const reactor = new Reactor({
    rules: reactorRules(config.reactor),
    bus: d.events,
    store: d.store,
    masterId: d.masterId,
    render: (task) => d.states.renderReactor(task),
    readFile: async (ref) => {
      if (ref.startsWith('salt://')) {
        const data = (await d.states.files.fresh()).read('base', ref.slice('salt://'.length));
        if (!data) throw new Error(`${ref} is not in the state tree (file_roots, base)`);
        return data.toString('utf8');
      }
      if (!path.isAbsolute(ref)) throw new Error(`${ref}: a reactor file is an absolute path or salt://`);
      return readFile(ref, 'utf8');
    },
    publish: (req) => d.jobs.publish({ ...req, tgt_type: req.tgt_type as TargetType }),
    wheelKey: async (action, match, kwarg) => {
      const { from, to } = keyAction(action, kwarg as Record<string, boolean>);
      const changed = await d.keys.change(match, from, to);
      for (const c of changed) if (c.from === 'accepted') d.hub.disconnect(c.minion);
      return changed;
    },
    ...(d.runRunner ? { runRunner: d.runRunner } : {}),
    maxDepth: config.reactor_max_depth,
    rate: config.reactor_rate,
    log: d.log,
  });
  reactor.start();
  return reactor;
}
