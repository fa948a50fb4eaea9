import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { createLogger, toBrineError } from '@brine/core';
import { MasterClient, resolveApi } from '@brine/master/client';
import type { Command, CommandIO } from '../command.js';
import { cliErrors } from '../errors.js';
import { outputOption, renderData } from '../output/outputters.js';
import { logFormat } from '../log-format.js';
import { printCheckStep } from '../output/check-steps.js';

/** `brine minion`: runs the minion agent in the foreground until SIGTERM/SIGINT. */
export const minionCommand: Command = {
  name: 'minion',
  summary: 'run the minion agent',
  usage: 'brine minion [--check] [--config FILE] [--id ID] [--master HOST[:PORT][,HOST[:PORT]...]] [--log-level LEVEL] [--log-format auto|json|pretty]',
  async run(argv, io) {
    const { values } = parseArgs({
      args: argv,
      options: {
        config: { type: 'string', short: 'c' },
        id: { type: 'string' },
        master: { type: 'string' },
        'log-level': { type: 'string', short: 'l' },
        'log-format': { type: 'string' },
        check: { type: 'boolean' },
      },
    });
    const overrides: Record<string, unknown> = {};
    if (values.id) overrides.id = values.id;
    // several masters (failover) as a comma-separated list, like `master:` as a list in the config
    if (values.master) overrides.master = values.master.includes(',') ? values.master.split(',') : values.master;
    if (values['log-level']) overrides.log_level = values['log-level'];
    const { checkMinion, loadMinionConfig, MinionAgent } = await import('@brine/minion');
    if (values.check) return checkMinionCommand(io, values.config, values.master !== undefined, overrides, checkMinion);
    const file = minionConfigFile(values.config, io.env, values.master !== undefined);
    const warnings: Array<[string, string]> = [];
    const config = loadMinionConfig(file, overrides, (event, msg) => warnings.push([event, msg]));
    const log = createLogger({ level: config.log_level, base: { app: 'brine', role: 'minion' }, format: logFormat(values['log-format'], this.usage) });
    for (const [event, msg] of warnings) log.warn({ event }, msg);
    const agent = new MinionAgent(config, { log });
    const code = await new Promise<number>((resolve) => {
      agent.once('fatal', (err: unknown) => {
        const e = toBrineError(err);
        io.stderr(`brine minion: ${e.code}: ${e.message}\n`);
        resolve(1);
      });
      const stop = () => resolve(0);
      process.once('SIGTERM', stop);
      process.once('SIGINT', stop);
      agent.start();
    });
    await agent.stop();
    return code;
  },
};

/** `brine minion --check`: each step printed as it ends; exit 1 at the first failure (no config file is the first). */
async function checkMinionCommand(
  io: CommandIO,
  flag: string | undefined,
  masterGiven: boolean,
  overrides: Record<string, unknown>,
  check: typeof import('@brine/minion').checkMinion,
): Promise<number> {
  let file: string | undefined;
  try {
    file = minionConfigFile(flag, io.env, masterGiven);
  } catch (err) {
    printCheckStep(io, { step: 'config', status: 'FAIL', detail: (err as Error).message });
    return 1;
  }
  return (await check(file, overrides, (s) => printCheckStep(io, s))) ? 0 : 1;
}

export const DEFAULT_MINION_CONFIG = '/etc/brine/minion.yaml';

/**
 * The minion's config: flag, environment, /etc/brine/minion.yaml. Without any, Salt's minion
 * would dial `salt` and trust whoever answers first; a Brine minion runs jobs as root and pins
 * the first master it reaches, so it refuses instead, saying where it looked (unless `--master`
 * names the master on the command line).
 */
export function minionConfigFile(flag: string | undefined, env: NodeJS.ProcessEnv, masterGiven: boolean): string | undefined {
  const file = flag || env.BRINE_MINION_CONFIG || (existsSync(DEFAULT_MINION_CONFIG) ? DEFAULT_MINION_CONFIG : undefined);
  if (file || masterGiven) return file;
  throw cliErrors.make('BRINE_ERR_CLI_NO_CONFIG', { role: 'minion', env: '$BRINE_MINION_CONFIG', path: DEFAULT_MINION_CONFIG });
}

interface MinionInfo {
  id: string;
  accepted: boolean;
  connected: boolean;
  last_seen: string | null;
}

/** Rows per request when `brine minions` reads every minion (10,000 minions: 10 requests). */
const MINIONS_PAGE = 1000;

/**
 * `brine minions`: which minions the master knows, connected or when last seen. Read from the
 * master a page at a time (text is printed as each page arrives); `--limit N` shows one page of
 * N, `--page P` which one.
 */
export const minionsCommand: Command = {
  name: 'minions',
  summary: 'list known minions: connected, last seen',
  usage: 'brine minions [--limit N [--page P]] [--out text|json|yaml|nested|raw|txt|quiet] [--config MASTER_CONFIG]',
  async run(argv, io) {
    const { values } = parseArgs({
      args: argv,
      options: { config: { type: 'string', short: 'c' }, out: { type: 'string' }, limit: { type: 'string' }, page: { type: 'string' } },
    });
    const out = outputOption(values.out, this.usage, 'text', { highstate: 'text' });
    const count = (name: string, v: string | undefined): number | undefined => {
      if (v === undefined) return undefined;
      if (!/^[1-9]\d*$/.test(v))
        throw cliErrors.make('BRINE_ERR_CLI_USAGE', { detail: `--${name} takes a positive whole number, not '${v}'`, usage: this.usage });
      return Number(v);
    };
    const limit = count('limit', values.limit);
    const page = count('page', values.page);
    if (page !== undefined && limit === undefined) throw cliErrors.make('BRINE_ERR_CLI_USAGE', { detail: '--page needs --limit', usage: this.usage });
    const client = new MasterClient(resolveApi(values.config, io.env));
    const text = out === 'text' || out === 'highstate';
    const rows: MinionInfo[] = [];
    const print = (minions: MinionInfo[]) => {
      for (const m of minions) {
        const state = m.connected ? 'connected' : `last seen ${m.last_seen ?? 'never'}`;
        io.stdout(`${m.id.padEnd(30)} ${m.accepted ? '' : '(key not accepted) '}${state}\n`);
      }
    };
    const take = (minions: MinionInfo[]) => (text ? print(minions) : rows.push(...minions));
    // the list needs no grains: none are asked for
    if (limit !== undefined) {
      take((await client.get<MinionsPage>(`/v1/minions?grains=&limit=${limit}&offset=${((page ?? 1) - 1) * limit}`)).minions);
    } else {
      for (let after: string | null = ''; after !== null;) {
        const p: MinionsPage = await client.get<MinionsPage>(`/v1/minions?grains=&limit=${MINIONS_PAGE}${after ? `&after=${encodeURIComponent(after)}` : ''}`);
        take(p.minions);
        // a master without pages answers every minion at once, and no `next`
        after = p.next ?? null;
      }
    }
    if (!text)
      io.stdout(
        renderData(
          out,
          rows.map(({ id, accepted, connected, last_seen }) => ({ id, accepted, connected, last_seen })),
        ),
      );
    return 0;
  },
};

interface MinionsPage {
  minions: MinionInfo[];
  total: number;
  next: string | null;
}
