import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createLogger, installRoot } from '@brine/core';
import { parse } from 'yaml';
import type { Command } from '../command.js';
import { cliErrors } from '../errors.js';
import { fleetExitCode, printFleetRun } from '../output/fleet.js';
import { outputOption } from '../output/outputters.js';
import { printReport } from '../output/report.js';

/** examples/fleet of this checkout (the demo's state tree and pillar). */
function exampleDir(): string {
  return path.join(installRoot(), 'examples', 'fleet');
}

/** The minions of the example: each `minions/*.yaml` of the tree's folder gives an id and grains. */
function exampleMinions(example: string): Array<[string, Record<string, unknown>]> {
  const dir = path.join(example, 'minions');
  if (!existsSync(dir)) return [['minion1', {}]];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml') || f.endsWith('.yml'))
    .sort()
    .map((f) => {
      const cfg = (parse(readFileSync(path.join(dir, f), 'utf8')) ?? {}) as { id?: string; grains?: Record<string, unknown> };
      return [cfg.id ?? f.replace(/\.ya?ml$/, ''), { ...(cfg.grains ?? {}), datacenter: 'demo' }];
    });
}

/** Resolves with the promise's value, or rejects with `what` once `seconds` have passed. */
function within<T>(p: Promise<T>, seconds: number, what: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(cliErrors.make('BRINE_ERR_CLI_DEMO', { detail: what() })), seconds * 1000);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

/**
 * `brine demo`: the whole loop in one command. A master and three minions run in this process
 * from temporary folders (their keys accepted for the demo only), the example tree is applied,
 * the outputter prints, and everything is stopped and removed again.
 */
export const demoCommand: Command = {
  name: 'demo',
  summary: 'start a master and three local minions in temp dirs, apply the example tree, stop',
  usage: 'brine demo [--tree DIR] [--keep] [--timeout SECONDS] [--out highstate|json|yaml|nested|raw|txt|quiet]',
  async run(argv, io) {
    const { values } = parseArgs({
      args: argv,
      options: { tree: { type: 'string' }, keep: { type: 'boolean' }, timeout: { type: 'string' }, out: { type: 'string' } },
    });
    const out = outputOption(values.out, this.usage, 'text');
    const example = values.tree ? path.resolve(io.cwd, values.tree) : exampleDir();
    if (!existsSync(path.join(example, 'states', 'top.sls'))) {
      io.stderr(`brine demo: no state tree at ${example}/states (pass --tree DIR: a folder with states/top.sls, and optionally pillar/ and minions/*.yaml)\n`);
      return 1;
    }
    const limit = Number(values.timeout ?? 60);
    if (!(limit > 0))
      throw cliErrors.make('BRINE_ERR_CLI_USAGE', { detail: `--timeout must be a number of seconds, not '${values.timeout}'`, usage: this.usage });
    const MINIONS = exampleMinions(example);
    const { loadMasterConfig, startMaster } = await import('@brine/master');
    const { loadMinionConfig, MinionAgent } = await import('@brine/minion');
    const dir = mkdtempSync(path.join(os.tmpdir(), 'brine-demo-'));
    const log = createLogger({ level: io.env.BRINE_LOG_LEVEL ?? 'silent' });
    const master = await startMaster(
      loadMasterConfig(undefined, {
        interface: '127.0.0.1',
        port: 0,
        api_port: 0,
        data_dir: path.join(dir, 'master'),
        file_roots: { base: [path.join(example, 'states')] },
        pillar_roots: existsSync(path.join(example, 'pillar')) ? { base: [path.join(example, 'pillar')] } : {},
        autosign: MINIONS.map(([id]) => id),
        ping_interval: 0,
        timeout: limit,
        log_level: 'silent',
      }),
      log,
    );
    const agents = MINIONS.map(
      ([id, grains]) =>
        new MinionAgent(
          loadMinionConfig(undefined, {
            id,
            master: '127.0.0.1',
            master_port: master.port,
            data_dir: path.join(dir, id),
            grains,
            recon_default: 0.2,
            recon_max: 1,
          }),
          { log },
        ),
    );
    let code = 1;
    try {
      io.stdout(`Master on 127.0.0.1:${master.port} (API ${master.apiUrl}), data in ${dir}\n`);
      const pending = () =>
        `minions ${MINIONS.map(([id]) => id)
          .filter((id) => !master.hub.sessions.get(id)?.started)
          .join(', ')} did not connect within ${limit} s (run with BRINE_LOG_LEVEL=debug to see why)`;
      // every minion has started once its grains are in (targeting needs them): an event, not a poll,
      // so nothing is left running when the limit passes first
      let offStart = (): void => {};
      const started = new Promise<void>((resolve, reject) => {
        agents.forEach((a) => a.once('fatal', (err: unknown) => reject(err)));
        const check = () => {
          if (MINIONS.every(([id]) => master.hub.sessions.get(id)?.started)) resolve();
        };
        offStart = master.events.subscribe('brine/minion/*/start', check);
        agents.forEach((a) => a.start());
      });
      try {
        await within(started, limit, pending);
      } finally {
        offStart();
      }
      io.stdout(`Minions ${MINIONS.map(([id]) => id).join(', ')} connected; keys accepted for this demo only.\n`);
      io.stdout(`Applying the example tree (${path.relative(io.cwd, example) || example}): brine run '*' state.apply\n\n`);
      const off = master.events.subscribe('brine/job/*/prog/*', (ev) => {
        const d = ev.data as { id: string; results: unknown[] };
        io.stderr(`${d.id}: ${d.results.length} more state(s) done\n`);
      });
      // managed files land in the demo folder (the example pillar's `root`, overridden as Salt's pillar= does)
      const pub = await master.jobs.publish({ tgt: '*', fun: 'state.apply', kwarg: { pillar: { root: path.join(dir, 'out') } }, user: 'demo', timeout: limit });
      const report = await master.jobs.wait(pub.jid, limit);
      off();
      if (out === 'text' || out === 'highstate') {
        code = printFleetRun({ jid: pub.jid, returns: report.returns, missing: report.missing, states: await master.store.stateResultsOf(pub.jid) }, io);
      } else {
        printReport(report, out, io);
        code = fleetExitCode({ ...report, states: [] });
      }
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
