import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MasterClient } from '@brine/master';
import { stringify } from 'yaml';
import { brine, BrineProcess } from './proc.js';

export interface JobResult {
  jid: string;
  minions: string[];
  returns: Record<string, { success: boolean; retcode: number; return: unknown }>;
  missing: Array<{ minion: string; reason: string }>;
}

export interface ClusterOptions {
  /** Master config options beyond the test defaults. */
  master?: Record<string, unknown>;
  /** Minion ids to start right away (with autosign they are accepted at once). */
  minions?: string[];
  /** Accept every key without asking (autosign '*'); default true. */
  autosign?: boolean;
  minionConfig?: (id: string) => Record<string, unknown>;
}

/**
 * A real master process and real minion processes on 127.0.0.1, each with its own temp dir;
 * ports are picked by the kernel on the first start and kept for restarts.
 */
export class Cluster {
  readonly dir: string;
  master!: BrineProcess;
  readonly minions = new Map<string, BrineProcess>();
  port = 0;
  apiPort = 0;
  apiUrl = '';
  fingerprint = '';
  client!: MasterClient;
  private masterOpts: Record<string, unknown>;

  private readonly opts: ClusterOptions;
  constructor(opts: ClusterOptions = {}) {
    this.opts = opts;
    this.dir = mkdtempSync(path.join(os.tmpdir(), 'brine-cluster-'));
    this.masterOpts = {
      interface: '127.0.0.1',
      port: 0,
      api_port: 0,
      data_dir: path.join(this.dir, 'master'),
      timeout: 5,
      autosign: opts.autosign === false ? [] : ['*'],
      ping_interval: 0,
      ...opts.master,
    };
  }

  /** Changes the master's options for its next start (a restart with another store, say). */
  setMasterOptions(opts: Record<string, unknown>): void {
    this.masterOpts = { ...this.masterOpts, ...opts };
  }

  get masterConfig(): string {
    return path.join(this.dir, 'master.yaml');
  }

  get env(): NodeJS.ProcessEnv {
    return { BRINE_API_URL: this.apiUrl };
  }

  async startMaster(): Promise<void> {
    writeFileSync(this.masterConfig, stringify({ ...this.masterOpts, port: this.port, api_port: this.apiPort }));
    this.master = new BrineProcess('master', ['master', '--config', this.masterConfig]);
    const ready = await this.master.waitEvent('master_ready');
    this.port = ready.port as number;
    this.apiPort = ready.api_port as number;
    this.apiUrl = ready.api_url as string;
    this.fingerprint = ready.fingerprint as string;
    const token = (await import('node:fs')).readFileSync(path.join(this.dir, 'master', 'api_token'), 'utf8').trim();
    this.client = new MasterClient({ url: this.apiUrl, token });
  }

  minionConfigFile(id: string): string {
    return path.join(this.dir, `minion-${id}.yaml`);
  }

  /** Starts a minion process (`env` adds to its environment); resolves once it is started (not necessarily accepted). */
  startMinion(id: string, extra: Record<string, unknown> = {}, env: NodeJS.ProcessEnv = {}): BrineProcess {
    const cfg = {
      id,
      master: '127.0.0.1',
      master_port: this.port,
      data_dir: path.join(this.dir, `minion-${id}`),
      acceptance_wait_time: 0.2,
      recon_default: 0.1,
      recon_max: 0.5,
      log_level: 'debug',
      ...(this.opts.minionConfig?.(id) ?? {}),
      ...extra,
    };
    writeFileSync(this.minionConfigFile(id), stringify(cfg));
    const p = new BrineProcess(id, ['minion', '--config', this.minionConfigFile(id)], env);
    this.minions.set(id, p);
    return p;
  }

  /** Starts the master and the given minions, waiting until each minion is authenticated. */
  async start(): Promise<this> {
    await this.startMaster();
    const ids = this.opts.minions ?? [];
    await Promise.all(ids.map((id) => this.startMinion(id).waitEvent('minion_ready')));
    // the grains that follow a welcome are stored a tick later: wait until targeting sees them
    await this.waitMinionsKnown(ids);
    return this;
  }

  async waitMinionsKnown(ids: string[]): Promise<void> {
    const { until } = await import('./proc.js');
    await until(
      async () => {
        const { minions } = await this.client.get<{ minions: Array<{ id: string; connected: boolean; grains: Record<string, unknown> }> }>('/v1/minions');
        return ids.every((id) => minions.some((m) => m.id === id && m.connected && m.grains.os)) ? true : undefined;
      },
      `minions ${ids.join(',')} connected`,
    );
  }

  /** Runs a job through the API and waits for it (what `brine run` does, without a process). */
  run(tgt: string | string[], fun: string, arg: unknown[] = [], extra: Record<string, unknown> = {}): Promise<JobResult> {
    return this.client.post<JobResult>('/v1/jobs', { tgt, fun, arg, wait: true, ...extra });
  }

  brine(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    return brine([...args, '--config', this.masterConfig], this.env);
  }

  async close(): Promise<void> {
    await Promise.all([...this.minions.values()].map((m) => m.kill('SIGTERM')));
    if (this.master) await this.master.kill('SIGTERM');
    rmSync(this.dir, { recursive: true, force: true });
  }
}
