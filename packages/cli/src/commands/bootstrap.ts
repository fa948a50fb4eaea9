import { parseArgs } from 'node:util';
import { toBrineError } from '@brine/core';
import { MasterClient, resolveApi } from '@brine/master/client';
import type { Command, CommandIO } from '../command.js';
import { cliErrors } from '../errors.js';
import { bootstrapHost, type BootstrapOptions, type HostReport, type MasterChannel } from '../bootstrap/bootstrap-host.js';
import { ConnectWatch } from '../bootstrap/connect-watch.js';
import { BOOTSTRAP_USAGE, parseHostSpec, targetPath, type HostSpec } from '../bootstrap/host-spec.js';
import { readTarball } from '../bootstrap/release-tarball.js';

/** The live progress line on a terminal: hosts done, failed, and what the running ones are at. */
class Progress {
  private readonly io: CommandIO;
  private readonly total: number;
  private readonly live: boolean;
  private readonly steps = new Map<string, string>();
  private done = 0;
  private failed = 0;
  constructor(io: CommandIO, total: number) {
    this.io = io;
    this.total = total;
    this.live = process.stderr.isTTY === true && !io.env.NO_COLOR;
  }

  step(host: HostSpec, step: string): void {
    this.steps.set(host.spec, step);
    this.draw();
  }

  finished(host: HostSpec, ok: boolean, line: string): void {
    this.steps.delete(host.spec);
    this.done++;
    if (!ok) this.failed++;
    if (this.live) this.io.stderr('\r\x1b[K');
    this.io.stdout(line);
    this.draw();
  }

  private draw(): void {
    if (!this.live) return;
    const running = [...this.steps].map(([h, s]) => `${h} (${s})`).join(', ');
    const text = `bootstrap: ${this.done}/${this.total} done, ${this.failed} failed${running ? `; ${running}` : ''}`;
    this.io.stderr(`\r\x1b[K${text.slice(0, (process.stderr.columns || 100) - 1)}`);
  }

  end(): void {
    if (this.live) this.io.stderr('\r\x1b[K');
  }
}

/** Runs `work` over `items`, at most `limit` at a time. */
async function pool<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/** The ssh client options passed through: -i, -o and -F, in the order given. */
function sshPassThrough(tokens: ReturnType<typeof parseArgs>['tokens']): string[] {
  const flags: Record<string, string> = { identity: '-i', 'ssh-option': '-o', 'ssh-config': '-F' };
  const out: string[] = [];
  for (const t of tokens ?? []) if (t.kind === 'option' && flags[t.name] && t.value !== undefined) out.push(flags[t.name]!, t.value);
  return out;
}

function positiveInt(text: string | undefined, fallback: number, option: string): number {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) throw cliErrors.make('BRINE_ERR_CLI_USAGE', { detail: `${option} takes a whole number from 1`, usage: BOOTSTRAP_USAGE });
  return n;
}

/** `brine bootstrap`: puts a minion on each host over SSH, enrolled and connected to this master. */
export const bootstrapCommand: Command = {
  name: 'bootstrap',
  summary: 'install, enroll and start minions on hosts over SSH (key accepted, master pinned)',
  usage: BOOTSTRAP_USAGE,
  async run(argv, io) {
    const { values, positionals, tokens } = parseArgs({
      args: argv,
      allowPositionals: true,
      tokens: true,
      options: {
        config: { type: 'string', short: 'c' },
        tarball: { type: 'string', multiple: true },
        prefix: { type: 'string' },
        'data-dir': { type: 'string' },
        master: { type: 'string' },
        concurrency: { type: 'string' },
        timeout: { type: 'string' },
        identity: { type: 'string', short: 'i' },
        'ssh-option': { type: 'string', short: 'o', multiple: true },
        'ssh-config': { type: 'string', short: 'F' },
      },
    });
    const usage = (detail: string) => cliErrors.make('BRINE_ERR_CLI_USAGE', { detail, usage: this.usage });
    if (positionals.length === 0) throw usage('name at least one host');
    if (!values.tarball?.length) throw usage('give the release tarball to install with --tarball (brine-VERSION-linux-ARCH.tar.gz)');
    if (values.master !== undefined && !/^[A-Za-z0-9._:[\]-]+$/.test(values.master)) throw usage(`--master '${values.master}': a host name or address`);
    const hosts = positionals.map(parseHostSpec);
    const ids = new Set<string>();
    for (const h of hosts) {
      if (ids.has(h.id)) throw usage(`the minion id '${h.id}' is given twice`);
      ids.add(h.id);
    }
    const prefix = values.prefix ?? '/opt/brine';
    const dataDir = values['data-dir'] ?? '/var/lib/brine/minion';
    targetPath(prefix, 'x', '--prefix');
    targetPath(dataDir, 'x', '--data-dir');
    const tarballs = await Promise.all(values.tarball.map(readTarball));
    const client = new MasterClient(resolveApi(values.config, io.env));
    const finger = await client.get<{ master: string } & Partial<MasterChannel>>('/v1/keys/finger');
    const channel: MasterChannel = { fingerprint: finger.master, interface: finger.interface ?? '0.0.0.0', port: finger.port ?? 4506 };
    const watch = new ConnectWatch(client);
    await watch.open();
    const progress = new Progress(io, hosts.length);
    const opts: BootstrapOptions = {
      tarballs,
      prefix,
      dataDir,
      ...(values.master !== undefined ? { master: values.master } : {}),
      channel,
      ssh: sshPassThrough(tokens),
      timeoutSeconds: positiveInt(values.timeout, 120, '--timeout'),
      client,
      watch,
      onStep: (h, s) => progress.step(h, s),
    };
    const reports: HostReport[] = [];
    let failed = 0;
    try {
      await pool(hosts, positiveInt(values.concurrency, 10, '--concurrency'), async (host) => {
        try {
          const r = await bootstrapHost(host, opts);
          reports.push(r);
          progress.finished(host, true, `${host.id}: ${r.summary}\n`);
        } catch (err) {
          failed++;
          const e = toBrineError(err);
          progress.finished(host, false, `${host.id}: failed: ${e.code}: ${e.message}\n`);
        }
      });
    } finally {
      progress.end();
      watch.close();
    }
    const changed = reports.filter((r) => r.changed).length;
    io.stdout(`${hosts.length} host(s): ${changed} changed, ${reports.length - changed} unchanged, ${failed} failed\n`);
    return failed > 0 ? 1 : 0;
  },
};
