import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createLogger } from '@brine/core';
import type { Command } from '../command.js';
import { printFleetRun } from '../output/fleet.js';

/** examples/fleet of this checkout (the demo's state tree and pillar). */
function exampleDir(): string {
  return path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../examples/fleet');
}

const MINIONS: Array<[string, Record<string, unknown>]> = [
  ['web1', { role: 'web', datacenter: 'demo' }],
  ['web2', { role: 'web', datacenter: 'demo' }],
  ['db1', { role: 'db', datacenter: 'demo' }],
];

/**
 * `brine demo`: the whole loop in one command. A master and three minions run in this process
 * from temporary folders (their keys accepted for the demo only), the example tree is applied,
 * the outputter prints, and everything is stopped and removed again.
 */
export const demoCommand: Command = {
  name: 'demo',
  summary: 'start a master and three local minions in temp dirs, apply the example tree, stop',
  usage: 'brine demo [--tree DIR] [--keep]',
  async run(argv, io) {
    const { values } = parseArgs({ args: argv, options: { tree: { type: 'string' }, keep: { type: 'boolean' } } });
    const example = values.tree ? path.resolve(io.cwd, values.tree) : exampleDir();
    if (!existsSync(path.join(example, 'states', 'top.sls'))) {
      io.stderr(`brine demo: no state tree at ${example}/states\n`);
      return 1;
    }
    const { loadMasterConfig, startMaster } = await import('@brine/master');
    const { loadMinionConfig, MinionAgent } = await import('@brine/minion');
    const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-demo-'));
    const log = createLogger({ level: io.env.BRINE_LOG_LEVEL ?? 'silent' });
    // the pillar is copied so that managed files land in the demo folder, not in /tmp/brine-fleet
    cpSync(path.join(example, 'pillar'), path.join(dir, 'pillar'), { recursive: true });
    const common = path.join(dir, 'pillar', 'common.sls');
    if (existsSync(common)) writeFileSync(common, readFileSync(common, 'utf8').replace(/^root:.*$/m, `root: ${path.join(dir, 'out')}`));
    const master = await startMaster(
      loadMasterConfig(undefined, {
        interface: '127.0.0.1',
        port: 0,
        api_port: 0,
        data_dir: path.join(dir, 'master'),
        file_roots: { base: [path.join(example, 'states')] },
        pillar_roots: { base: [path.join(dir, 'pillar')] },
        autosign: MINIONS.map(([id]) => id),
        ping_interval: 0,
        timeout: 60,
        log_level: 'silent',
      }),
      log,
    );
    const agents = MINIONS.map(
      ([id, grains]) =>
        new MinionAgent(
          loadMinionConfig(undefined, { id, master: '127.0.0.1', master_port: master.port, data_dir: path.join(dir, id), grains, recon_default: 0.2, recon_max: 1 }),
          { log },
        ),
    );
    let code = 1;
    try {
      io.stdout(`Master on 127.0.0.1:${master.port} (API ${master.apiUrl}), data in ${dir}\n`);
      await Promise.all(agents.map((a) => new Promise<void>((resolve) => (a.once('ready', () => resolve()), a.start()))));
      // the grains follow the welcome; targeting needs them
      await new Promise<void>((resolve) => {
        const check = () => (MINIONS.every(([id]) => master.hub.sessions.get(id)?.started) ? resolve() : setTimeout(check, 10));
        check();
      });
      io.stdout(`Minions ${MINIONS.map(([id]) => id).join(', ')} connected; keys accepted for this demo only.\n`);
      io.stdout(`Applying the example tree (${path.relative(io.cwd, example) || example}): brine run '*' state.apply\n\n`);
      const off = master.events.subscribe('brine/job/*/prog/*', (ev) => {
        const d = ev.data as { id: string; results: unknown[] };
        io.stderr(`${d.id}: ${d.results.length} more state(s) done\n`);
      });
      const pub = master.jobs.publish({ tgt: '*', fun: 'state.apply', user: 'demo', timeout: 60 });
      const report = await master.jobs.wait(pub.jid, 60);
      off();
      code = printFleetRun({ jid: pub.jid, returns: report.returns, missing: report.missing, states: master.results.ofJob(pub.jid) }, io);
      if (values.keep) io.stdout(`\nStored in ${path.join(dir, 'master', 'master.db')}: job ${pub.jid}\n`);
    } finally {
      await Promise.all(agents.map((a) => a.stop()));
      await master.close();
      if (!values.keep) rmSync(dir, { recursive: true, force: true });
      io.stdout(values.keep ? `Stopped; kept ${dir}\n` : 'Stopped the master and the minions; removed the demo folder.\n');
    }
    return code;
  },
};
