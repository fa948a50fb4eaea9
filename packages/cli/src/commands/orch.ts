import { parseArgs } from 'node:util';
import { MasterClient, resolveApi, type JobReport, type JobRow } from '@brine/master/client';
import type { Command, CommandIO } from '../command.js';
import { printFleetRun, type FleetStateRow } from '../output/fleet.js';
import { parseSaltArgs } from '../salt-args.js';

/** Runners `brine run` takes without a target, as salt-run does. */
export const RUNNERS = new Set(['state.orchestrate', 'state.orch']);

const ORCH_OPTIONS = {
  config: { type: 'string', short: 'c' },
  test: { type: 'boolean' },
  pillar: { type: 'string' },
  saltenv: { type: 'string' },
  out: { type: 'string' },
} as const;

type StepEvent = { tag: string; data: { results?: Array<{ run_num: number; tag: string; result: boolean | null; changed: boolean; child_jid?: string }> } };

/** One live line per finished step: its number, state function, ID, outcome and child job. */
export function stepLine(r: { run_num: number; tag: string; result: boolean | null; changed: boolean; child_jid?: string }): string {
  const [state, id, , fun] = r.tag.split('_|-');
  const outcome = r.result === false ? 'failed' : r.result === null ? 'would change' : r.changed ? 'changed' : 'ok';
  return `step ${r.run_num} ${state}.${fun} ${id}: ${outcome}${r.child_jid ? ` (job ${r.child_jid})` : ''}\n`;
}

/**
 * Runs a runner on the master and follows it: each orchestration step as it finishes (on
 * stderr), then the orchestration's steps the way Salt's highstate outputter shows them, and
 * the child jobs. Non-zero when a step failed.
 */
export async function runRunner(
  client: MasterClient,
  fun: string,
  arg: unknown[],
  kwarg: Record<string, unknown>,
  io: CommandIO,
  json: boolean,
): Promise<number> {
  const ac = new AbortController();
  let jid = '';
  const early: StepEvent[] = [];
  // the return's event comes after every step's on the stream: the live lines are whole once it is seen
  let retSeen = false;
  let onRet = () => {};
  const onEvent = (ev: StepEvent) => {
    if (!jid) return void early.push(ev);
    if (ev.tag.startsWith(`brine/job/${jid}/ret/`)) {
      retSeen = true;
      onRet();
    }
    if (!ev.tag.startsWith(`brine/job/${jid}/prog/`)) return;
    for (const r of ev.data.results ?? []) io.stderr(stepLine(r));
  };
  let opened!: () => void;
  const open = new Promise<void>((r) => (opened = r));
  void client.events('brine/job/*', (ev) => onEvent(ev as StepEvent), ac.signal, opened).catch(() => opened());
  await open;
  try {
    ({ jid } = await client.post<{ jid: string }>('/v1/runner', { fun, arg, kwarg }));
    io.stderr(`orchestration ${jid}\n`);
    early.splice(0).forEach(onEvent);
    const report = await client.get<JobReport>(`/v1/jobs/${jid}?wait=86400`);
    if (!retSeen) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 2000);
        onRet = () => (clearTimeout(timer), resolve());
      });
    }
    const ret = Object.values(report.returns)[0];
    if (json) {
      io.stdout(`${JSON.stringify({ jid, return: Object.fromEntries(Object.entries(report.returns).map(([m, r]) => [m, r.return])) }, null, 2)}\n`);
      return ret?.success ? 0 : 1;
    }
    const { states } = await client.get<{ states: FleetStateRow[] }>(`/v1/jobs/${jid}/states`);
    printFleetRun({ jid, returns: report.returns, missing: report.missing, states }, io);
    await printChildren(client, jid, io);
    return ret?.success ? 0 : 1;
  } finally {
    ac.abort();
  }
}

/** The jobs an orchestration's steps published (`brine jobs show` and the end of a run). */
export async function printChildren(client: MasterClient, jid: string, io: CommandIO): Promise<void> {
  const { jobs } = await client.get<{ jobs: Array<JobRow & { returned: number }> }>(`/v1/jobs?parent=${jid}&limit=10000`);
  if (jobs.length === 0) return;
  io.stdout('\nChild jobs:\n');
  for (const j of [...jobs].reverse()) {
    const args = j.arg.length ? ` ${j.arg.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' ')}` : '';
    io.stdout(`  ${j.jid}  ${j.fun}${args}  on ${Array.isArray(j.target) ? j.target.join(',') : j.target}  returned ${j.returned}/${j.expected.length}\n`);
  }
}

/** `brine orch SLS`: Salt's `salt-run state.orchestrate SLS`. */
export const orchCommand: Command = {
  name: 'orch',
  summary: 'run an orchestration SLS on the master (like salt-run state.orchestrate)',
  usage: 'brine orch <sls> [--test] [--pillar JSON] [--saltenv ENV] [--out text|json] [--config MASTER_CONFIG]',
  async run(argv, io) {
    const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: ORCH_OPTIONS });
    const [sls, ...rest] = positionals;
    if (!sls) {
      io.stderr(`usage: ${this.usage}\n`);
      return 2;
    }
    const { args, kwargs } = parseSaltArgs(rest);
    if (values.test) kwargs.test = true;
    if (values.saltenv) kwargs.saltenv = values.saltenv;
    if (values.pillar !== undefined) {
      try {
        kwargs.pillar = JSON.parse(values.pillar) as unknown;
      } catch (e) {
        io.stderr(`brine orch: --pillar is not JSON: ${(e as Error).message}\n`);
        return 2;
      }
    }
    const client = new MasterClient(resolveApi(values.config, io.env));
    return runRunner(client, 'state.orchestrate', [sls, ...args], kwargs, io, values.out === 'json');
  },
};
