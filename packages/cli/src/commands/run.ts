import { parseArgs } from 'node:util';
import { MasterClient, resolveApi, type JobReport } from '@brine/master/client';
import type { Command, CommandIO } from '../command.js';
import { outputOption } from '../output/outputters.js';
import { commandParams } from '../local/params.js';
import { printFleetRun, STATE_RUN_FUNCTIONS, type FleetStateRow } from '../output/fleet.js';
import type { HighstateMode } from '../output/highstate.js';
import { printReport } from '../output/report.js';
import { parseSaltArgs } from '../salt-args.js';
import { RUNNERS, runRunner } from './orch.js';

const TYPE_FLAGS = {
  pcre: 'pcre',
  list: 'list',
  grain: 'grain',
  'grain-pcre': 'grain_pcre',
  pillar: 'pillar',
  'pillar-pcre': 'pillar_pcre',
  ipcidr: 'ipcidr',
  compound: 'compound',
  nodegroup: 'nodegroup',
} as const;

const RUN_OPTIONS = {
  config: { type: 'string', short: 'c' },
  pcre: { type: 'boolean', short: 'E' },
  list: { type: 'boolean', short: 'L' },
  grain: { type: 'boolean', short: 'G' },
  'grain-pcre': { type: 'boolean', short: 'P' },
  pillar: { type: 'boolean', short: 'I' },
  'pillar-pcre': { type: 'boolean', short: 'J' },
  ipcidr: { type: 'boolean', short: 'S' },
  compound: { type: 'boolean', short: 'C' },
  nodegroup: { type: 'boolean', short: 'N' },
  timeout: { type: 'string', short: 't' },
  async: { type: 'boolean' },
  batch: { type: 'string', short: 'b' },
  out: { type: 'string' },
  progress: { type: 'boolean' },
  'state-output': { type: 'string' },
  params: { type: 'string', multiple: true },
  // salt's: the jid before the output, once (-v with Salt's underline); every return as one document
  'show-jid': { type: 'boolean' },
  verbose: { type: 'boolean', short: 'v' },
  static: { type: 'boolean' },
} as const;

const parseRun = (argv: string[]) => parseArgs({ args: argv, allowPositionals: true, options: RUN_OPTIONS });

/** `brine run`: the `salt` command. */
export const runCommand: Command = {
  name: 'run',
  summary: 'run a function on targeted minions (like the salt command)',
  usage:
    'brine run <target> <function> [arg ...] [key=value ...] [-E|-L|-G|-P|-I|-J|-S|-C|-N] [--timeout S] [--async] [--batch N|N%] [--out highstate|text|json|yaml|nested|raw|txt|quiet] [--progress] [--state-output full|terse|mixed|changes] [--params FILE ...] [--show-jid] [-v|--verbose] [--static] [--config MASTER_CONFIG]',
  async run(argv, io) {
    const { values, positionals } = parseRun(argv);
    const [target, fun, ...rest] = positionals;
    if (target && RUNNERS.has(target)) {
      // a runner (salt-run): no target
      const { args, kwargs } = parseSaltArgs(positionals.slice(1));
      return runRunner(new MasterClient(resolveApi(values.config, io.env)), target, args, kwargs, io, values.out === 'json');
    }
    if (!target || !fun) {
      io.stderr(`usage: ${this.usage}\n`);
      return 2;
    }
    const body = jobBody(values, target, fun, rest, io);
    if (typeof body === 'number') return body;
    const client = new MasterClient(resolveApi(values.config, io.env));
    const out = outputOption(values.out, this.usage, 'text');
    const stateRun = STATE_RUN_FUNCTIONS.has(fun) && (out === 'text' || out === 'highstate');
    const tty = !!process.stderr.isTTY;
    const progress = (tty || !!values.progress) && out !== 'json' && out !== 'quiet';
    const live: Live = { jid: '', returnSeen: new Set(), onReturnSeen: () => {}, announced: new Set(), onAnnounced: () => {} };
    let stopProgress = () => {};
    let flushEarly = () => {};
    if (stateRun && progress && !values.async) ({ stop: stopProgress, flush: flushEarly } = await watchStates(client, io, tty, live));
    let stopBatch = () => {};
    if (values.batch !== undefined && !values.async && out !== 'quiet') {
      const batches = await watchBatches(client, io, out, live);
      const flush = flushEarly;
      flushEarly = () => {
        flush();
        batches.flush();
      };
      stopBatch = batches.stop;
    }
    let pub: Published;
    try {
      pub = await client.post<Published>('/v1/jobs', body);
    } catch (e) {
      stopProgress();
      stopBatch();
      throw e;
    }
    live.jid = pub.jid;
    if (!values.async) announceJid(values, pub.jid, out, io);
    flushEarly();
    if (values.async) {
      io.stdout(`Executed command with job ID: ${pub.jid}\n`);
      return 0;
    }
    if (!stateRun && progress && tty) stopProgress = watchReturns(client, pub);
    const wait = values.batch !== undefined ? 86400 : pub.timeout;
    const report = await client.get<JobReport>(`/v1/jobs/${pub.jid}?wait=${wait}`);
    // The report can arrive before the last events on the stream: wait (briefly) for the return
    // events of the minions that returned, and for every batch announcement, so the output is whole.
    if (stateRun && progress)
      await caughtUp(
        () => Object.keys(report.returns).every((m) => live.returnSeen.has(m)),
        (f) => (live.onReturnSeen = f),
      );
    if (values.batch !== undefined && out !== 'quiet') {
      await caughtUp(
        () => Object.keys(report.returns).every((m) => live.announced.has(m)),
        (f) => (live.onAnnounced = f),
      );
    }
    stopProgress();
    stopBatch();
    if (stateRun) {
      const { states } = await client.get<{ states: FleetStateRow[] }>(`/v1/jobs/${pub.jid}/states`);
      return printFleetRun({ jid: pub.jid, returns: report.returns, missing: report.missing, states }, io, values['state-output'] as HighstateMode | undefined);
    }
    printReport(report, out, io, { whole: !!values.static });
    const failed = report.missing.length > 0 || Object.values(report.returns).some((r) => !r.success);
    return failed ? 1 : 0;
  },
};

type RunValues = ReturnType<typeof parseRun>['values'];

/** Salt's -v and --show-jid lines, on stderr when stdout is a document a program parses. */
function announceJid(values: RunValues, jid: string, out: string, io: CommandIO): void {
  const say = out === 'json' || out === 'yaml' || out === 'raw' ? io.stderr : io.stdout;
  if (values.verbose) {
    const msg = `Executing job with jid ${jid}`;
    say(`${msg}\n${'-'.repeat(msg.length)}\n\n`);
  } else if (values['show-jid']) say(`jid: ${jid}\n`);
}
type Published = { jid: string; minions: string[]; timeout: number };
type JobEvent = { tag: string; data: unknown };

/** What the event listeners share with the run: the job id once published, and the minions seen. */
interface Live {
  jid: string;
  // the live lines of returns: the job's answer can beat their events through the stream
  returnSeen: Set<string>;
  onReturnSeen: () => void;
  announced: Set<string>;
  onAnnounced: () => void;
}

/** The job to publish from the command line, or the exit status of a usage error. */
function jobBody(values: RunValues, target: string, fun: string, rest: string[], io: CommandIO): Record<string, unknown> | number {
  const types = Object.entries(TYPE_FLAGS).filter(([flag]) => values[flag as keyof typeof values]);
  if (types.length > 1) {
    io.stderr('brine run: choose one target type\n');
    return 2;
  }
  const tgt_type = types[0]?.[1] ?? 'glob';
  const { args: arg, kwargs: kwarg } = parseSaltArgs(rest);
  // Template params: the --params files in order, then params='{...}' on top (as brine local
  // does); the master compiles with them and a missing params['key'] names the key.
  if (values.params?.length || kwarg.params !== undefined) {
    const params = commandParams(values.params ?? [], kwarg.params, io.cwd, (detail) => io.stderr(`brine run: ${detail}\n`));
    if (!params) return 2;
    kwarg.params = params;
  }
  const timeout = values.timeout !== undefined ? Number(values.timeout) : undefined;
  if (timeout !== undefined && !(timeout >= 0)) {
    io.stderr(`brine run: --timeout must be a number of seconds\n`);
    return 2;
  }
  const body: Record<string, unknown> = {
    tgt: tgt_type === 'list' ? target.split(',').map((s) => s.trim()) : target,
    tgt_type,
    fun,
    arg,
    kwarg,
  };
  if (timeout !== undefined) body.timeout = timeout;
  if (values.batch !== undefined) body.batch = values.batch;
  return body;
}

/** Subscribes to the job's events before it is published, so no event is missed. */
async function subscribe(client: MasterClient, tags: string, onEvent: (ev: JobEvent) => void, signal: AbortSignal): Promise<void> {
  let opened!: () => void;
  const open = new Promise<void>((r) => (opened = r));
  void client.events(tags, onEvent, signal, opened).catch(() => opened());
  await open;
}

/** Shows the states done per minion while a state run goes (one line on a terminal). */
async function watchStates(client: MasterClient, io: CommandIO, tty: boolean, live: Live): Promise<{ stop: () => void; flush: () => void }> {
  const ac = new AbortController();
  const done = new Map<string, number>();
  const early: JobEvent[] = [];
  const onEvent = (ev: JobEvent) => {
    if (!live.jid) return void early.push(ev);
    if (!ev.tag.startsWith(`brine/job/${live.jid}/`)) return;
    const d = ev.data as { id: string; results?: Array<{ tag: string; result: boolean | null }> };
    if (ev.tag.includes('/prog/')) {
      done.set(d.id, (done.get(d.id) ?? 0) + (d.results?.length ?? 0));
      const last = d.results?.[d.results.length - 1];
      if (tty) {
        const parts = [...done].sort(([a], [b]) => a.localeCompare(b)).map(([m, n]) => `${m} ${n}`);
        process.stderr.write(`\r\x1b[K[states done] ${parts.join(', ')}`.slice(0, (process.stderr.columns || 100) + 8));
      } else if (last) {
        const [st, id, , f] = last.tag.split('_|-');
        io.stderr(
          `${d.id}: ${done.get(d.id)} states done (${st}.${f} ${id}: ${last.result === false ? 'failed' : last.result === null ? 'would change' : 'ok'})\n`,
        );
      }
    } else if (ev.tag.includes('/ret/')) {
      if (!tty) io.stderr(`${d.id}: returned\n`);
      live.returnSeen.add(d.id);
      live.onReturnSeen();
    }
  };
  await subscribe(client, 'brine/job/*', onEvent, ac.signal);
  const stop = () => {
    ac.abort();
    if (tty) process.stderr.write('\r\x1b[K');
  };
  return { stop, flush: () => early.splice(0).forEach(onEvent) };
}

/** Announces each batch of minions as the master sends it. */
async function watchBatches(client: MasterClient, io: CommandIO, out: string, live: Live): Promise<{ stop: () => void; flush: () => void }> {
  // subscribed before publishing: the first batch is sent with the publish
  const ac = new AbortController();
  const early: JobEvent[] = [];
  const onBatch = (ev: JobEvent) => {
    if (!live.jid) return void early.push(ev);
    if (ev.tag !== `brine/job/${live.jid}/batch`) return;
    const minions = (ev.data as { minions: string[] }).minions;
    // on stderr when stdout is a document a program parses
    const say = out === 'json' || out === 'yaml' || out === 'raw' ? io.stderr : io.stdout;
    say(`Executing run on [${minions.map((m) => `'${m}'`).join(', ')}]\n\n`);
    for (const m of minions) live.announced.add(m);
    live.onAnnounced();
  };
  await subscribe(client, 'brine/job/*/batch', onBatch, ac.signal);
  return { stop: () => ac.abort(), flush: () => early.splice(0).forEach(onBatch) };
}

/** Counts the returns on a terminal while a job that is not a state run goes; the stop function. */
function watchReturns(client: MasterClient, pub: Published): () => void {
  const ac = new AbortController();
  let returned = 0;
  const draw = () => process.stderr.write(`\r[${returned}/${pub.minions.length} returned] ${pub.jid}`);
  draw();
  void client
    .events(
      `brine/job/${pub.jid}/ret/*`,
      () => {
        returned++;
        draw();
      },
      ac.signal,
    )
    .catch(() => {});
  return () => {
    ac.abort();
    process.stderr.write('\r\x1b[K');
  };
}

/** Resolves once `done()` holds, rechecked whenever the stream calls back, or after 2 s. */
async function caughtUp(done: () => boolean, onProgress: (check: () => void) => void): Promise<void> {
  if (done()) return;
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, 2000);
    onProgress(() => {
      if (done()) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
}
