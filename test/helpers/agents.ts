import path from 'node:path';
import { createLogger } from '@brine/core';
import { loadMinionConfig, MinionAgent } from '@brine/minion';

/**
 * Many real minion agents (real TLS WebSockets, own keys and spools) in the test's own process,
 * for tests that need a fleet of hundreds: a process per minion would not fit the machine.
 */
export async function startAgents(
  n: number,
  opts: { dir: string; port: number; prefix: string; grains: (i: number) => Record<string, unknown> },
): Promise<MinionAgent[]> {
  const log = createLogger({ level: 'silent' });
  const agents: MinionAgent[] = [];
  for (let i = 0; i < n; i++) {
    const config = loadMinionConfig(undefined, {
      id: `${opts.prefix}-${String(i).padStart(3, '0')}`,
      master: '127.0.0.1',
      master_port: opts.port,
      data_dir: path.join(opts.dir, 'agents', String(i)),
      recon_default: 0.2,
      recon_max: 2,
      log_level: 'silent',
    });
    agents.push(new MinionAgent(config, { log, grains: opts.grains(i) }));
  }
  await Promise.all(
    agents.map(
      (a) =>
        new Promise((resolve) => {
          a.once('ready', resolve);
          a.start();
        }),
    ),
  );
  return agents;
}
