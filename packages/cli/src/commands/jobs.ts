import { parseArgs } from 'node:util';
import { MasterClient, resolveApi, type JobReport, type JobRow } from '@brine/master/client';
import { isJid } from '@brine/protocol';
import type { Command, CommandIO } from '../command.js';
import { outputOption, renderData, type Outputter } from '../output/outputters.js';
import { ANSI, NO_COLOR } from '../output/highstate.js';
import { printFleetRun, STATE_RUN_FUNCTIONS, useColor, type FleetStateRow } from '../output/fleet.js';
import { printReport } from '../output/report.js';
import { printChildren } from './orch.js';

interface StoredState extends FleetStateRow {
  jid: string;
}

const JOBS_OPTIONS = {
  config: { type: 'string', short: 'c' },
  function: { type: 'string' },
  target: { type: 'string' },
  minion: { type: 'string' },
  since: { type: 'string' },
  until: { type: 'string' },
  limit: { type: 'string' },
  id: { type: 'string' },
  jid: { type: 'string' },
  failed: { type: 'boolean' },
  changed: { type: 'boolean' },
  out: { type: 'string' },
} as const;

const parseJobs = (argv: string[]) => parseArgs({ args: argv, allowPositionals: true, options: JOBS_OPTIONS });

/** `brine jobs`: the job store (list, show, active), like the jobs runner. */
export const jobsCommand: Command = {
  name: 'jobs',
  summary: 'query jobs: list, show <jid>, active, states, last',
  usage:
    'brine jobs list [--function F] [--target T] [--minion ID] [--since TIME] [--until TIME] [--limit N] | show <jid> | active' +
    ' | states [--minion ID] [--id STATE_ID_OR_NAME] [--failed] [--changed] [--since 7d] [--jid JID] [--limit N] | last' +
    '  [--out text|json|yaml|nested|raw|txt|quiet] [--config MASTER_CONFIG]',
  async run(argv, io) {
    const { values, positionals } = parseJobs(argv);
    const [action = 'list', jid] = positionals;
    const client = new MasterClient(resolveApi(values.config, io.env));
    const out = outputOption(values.out, this.usage, 'text', { highstate: 'text' });
    const dump = (v: unknown) => io.stdout(renderData(out as Exclude<Outputter, 'text' | 'highstate'>, v));
    const asked: Asked = { client, values, out, dump, io };
    if (action === 'list') return listJobs(asked);
    if (action === 'show') return showJob(asked, jid);
    if (action === 'states') return listStates(asked);
    if (action === 'last') {
      const { last } = await client.get<{
        last: Array<{ minion: string; jid: string; created_at: string; success: boolean | null; states: number; failed: number; changed: number }>;
      }>('/v1/states/last');
      if (out !== 'text') return (dump(last), 0);
      for (const l of last) {
        io.stdout(
          `${l.minion.padEnd(24)} ${l.jid}  ${l.created_at}  ${l.success ? 'succeeded' : 'failed'}  states: ${l.states}  failed: ${l.failed}  changed: ${l.changed}\n`,
        );
      }
      return 0;
    }
    if (action === 'active') {
      const { active } = await client.get<{ active: Array<{ jid: string; fun: string; target: unknown; created_at: string; running: string[] }> }>(
        '/v1/jobs/active',
      );
      if (out !== 'text') return (dump(active), 0);
      for (const a of active) {
        io.stdout(`${a.jid}:\n    Function:    ${a.fun}\n    StartTime:   ${a.created_at}\n    Running:     ${a.running.join(', ')}\n`);
      }
      return 0;
    }
    io.stderr(`brine jobs: unknown action '${action}'\nusage: ${this.usage}\n`);
    return 2;
  },
};

/** What every action needs: the client, the options, the outputter. */
interface Asked {
  client: MasterClient;
  values: ReturnType<typeof parseJobs>['values'];
  out: Outputter;
  dump: (v: unknown) => void;
  io: CommandIO;
}

/** `brine jobs list`: the stored jobs, filtered. */
async function listJobs({ client, values, out, dump, io }: Asked): Promise<number> {
  const q = new URLSearchParams();
  for (const k of ['function', 'target', 'minion', 'since', 'until', 'limit'] as const) {
    if (values[k] !== undefined) q.set(k, values[k]!);
  }
  const { jobs } = await client.get<{ jobs: Array<JobRow & { returned: number }> }>(`/v1/jobs${q.size ? `?${q}` : ''}`);
  if (out !== 'text') return (dump(jobs), 0);
  const c = useColor(io) ? ANSI : NO_COLOR;
  for (const j of jobs) {
    const tgt = Array.isArray(j.target) ? j.target.join(',') : j.target;
    io.stdout(
      `${c.CYAN}${j.jid}:${c.ENDC}\n    Function:    ${j.fun}\n    Arguments:   ${JSON.stringify(j.arg)}${Object.keys(j.kwarg).length ? ' ' + JSON.stringify(j.kwarg) : ''}\n` +
        `    Target:      ${tgt}\n    Target-type: ${j.tgt_type}\n    User:        ${j.user}\n    StartTime:   ${j.created_at}\n` +
        `    Returned:    ${j.returned}/${j.expected.length}\n`,
    );
  }
  return 0;
}

/** `brine jobs show <jid>`: one job and its returns. */
async function showJob({ client, out, dump, io }: Asked, jid: string | undefined): Promise<number> {
  if (!jid) {
    io.stderr('brine jobs show: give a jid\n');
    return 2;
  }
  if (!isJid(jid)) {
    io.stderr(`brine jobs show: no such job '${jid}' (a jid is 20 digits, as 'brine jobs list' shows them)\n`);
    return 1;
  }
  let report: JobReport;
  try {
    report = await client.get<JobReport>(`/v1/jobs/${encodeURIComponent(jid)}`);
  } catch (err) {
    if ((err as { code?: string }).code !== 'BRINE_ERR_MASTER_NOT_FOUND') throw err;
    io.stderr(`brine jobs show: no such job ${jid}\n`);
    return 1;
  }
  if (out !== 'text') return (dump(report), 0);
  if (STATE_RUN_FUNCTIONS.has(report.job.fun)) {
    // the same rendering as the live `brine run`, from the stored returns and state results
    const { states } = await client.get<{ states: FleetStateRow[] }>(`/v1/jobs/${encodeURIComponent(jid)}/states`);
    return printFleetRun({ jid: report.jid, returns: report.returns, missing: report.missing, states }, io);
  }
  if (report.job.fun === 'state.orchestrate') {
    // an orchestration: its steps as they were stored, then the jobs they published
    const { states } = await client.get<{ states: FleetStateRow[] }>(`/v1/jobs/${encodeURIComponent(jid)}/states`);
    const code = printFleetRun({ jid: report.jid, returns: report.returns, missing: report.missing, states }, io);
    await printChildren(client, jid, io);
    return code;
  }
  const j = report.job;
  io.stdout(
    `jid:        ${j.jid}\nfunction:   ${j.fun}\narguments:  ${JSON.stringify(j.arg)}${Object.keys(j.kwarg).length ? ' ' + JSON.stringify(j.kwarg) : ''}\n` +
      `target:     ${Array.isArray(j.target) ? j.target.join(',') : j.target} (${j.tgt_type})\nstarted:    ${j.created_at}\nuser:       ${j.user}\n` +
      `minions:    ${j.expected.join(', ')}\nreturned:   ${Object.keys(report.returns).length}/${j.expected.length}\n` +
      (report.missing.length ? `not returned: ${report.missing.map((m) => m.minion).join(', ')}\n` : '') +
      '\n',
  );
  printReport(report, 'text', io);
  return 0;
}

/** `brine jobs states`: stored state results, filtered. */
async function listStates({ client, values, out, dump, io }: Asked): Promise<number> {
  const q = new URLSearchParams();
  for (const k of ['minion', 'id', 'since', 'jid', 'limit'] as const) if (values[k] !== undefined) q.set(k, values[k]!);
  if (values.failed) q.set('failed', 'true');
  if (values.changed) q.set('changed', 'true');
  const { states, minions } = await client.get<{ states: StoredState[]; minions: string[] }>(`/v1/states${q.size ? `?${q}` : ''}`);
  if (out !== 'text') return (dump({ minions, states }), 0);
  for (const s of states) {
    const res = s.result === true ? 'True' : s.result === false ? 'False' : 'None';
    const changed = Object.keys(s.changes).length ? ' changed' : '';
    io.stdout(
      `${s.jid}  ${s.minion}  ${s.state}.${s.fun}  ${s.id}${s.name !== s.id ? ` (${s.name})` : ''}  Result: ${res}${changed}\n    ${s.comment.split('\n').join('\n    ')}\n`,
    );
  }
  io.stdout(`${states.length} state result(s) from ${minions.length} minion(s)${minions.length ? `: ${minions.join(', ')}` : ''}\n`);
  return 0;
}
