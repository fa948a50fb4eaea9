import { createPublicKey } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { isIP } from 'node:net';
import type { MasterClient } from '@brine/master/client';
import { stringify } from 'yaml';
import { cliErrors } from '../errors.js';
import type { ConnectWatch } from './connect-watch.js';
import { targetPath, type HostSpec } from './host-spec.js';
import { MACHINE_ARCH, type ReleaseTarball } from './release-tarball.js';
import { CONFIGURE, INSTALL, LOG_TAIL, PROBE, remoteCommand, START, SUPERVISOR, systemdUnit } from './remote-scripts.js';
import { shown, ssh, sshStep } from './ssh.js';

/** Where minions reach this master, and how they recognise it (`/v1/keys/finger`). */
export interface MasterChannel {
  fingerprint: string;
  interface: string;
  port: number;
}

export interface BootstrapOptions {
  tarballs: ReleaseTarball[];
  prefix: string;
  dataDir: string;
  /** --master: the address minions dial, when the channel's interface is not it. */
  master?: string;
  channel: MasterChannel;
  ssh: string[];
  timeoutSeconds: number;
  client: MasterClient;
  watch: ConnectWatch;
  onStep: (host: HostSpec, step: string) => void;
}

export interface HostReport {
  host: HostSpec;
  changed: boolean;
  summary: string;
}

interface Probe {
  installed: string;
  machine: string;
  init: 'systemd' | 'plain';
  clientAddress?: string;
}

const UNIT_FILE = '/etc/systemd/system/brine-minion.service';

/** What the probe printed, each line checked: nothing else is believed or used. */
function parseProbe(host: HostSpec, out: string): Probe {
  const bad = (detail: string) => cliErrors.make('BRINE_ERR_CLI_BOOTSTRAP_REPLY', { host: host.spec, step: 'the probe', detail });
  const [installed = '', machine = '', init = '', conn = ''] = out.split('\n');
  if (!/^([0-9a-f]{64}|none)$/.test(installed)) throw bad(`release hash '${shown(installed, 80)}'`);
  if (!/^[A-Za-z0-9_]{1,32}$/.test(machine)) throw bad(`machine '${shown(machine, 80)}'`);
  if (init !== 'systemd' && init !== 'plain') throw bad(`init '${shown(init, 80)}'`);
  const client = conn.split(' ')[0] ?? '';
  return { installed, machine, init, ...(isIP(client) ? { clientAddress: client } : {}) };
}

/** The address written as `master:` in the minion's config. */
function masterAddress(host: HostSpec, opts: BootstrapOptions, probe: Probe): string {
  if (opts.master) return opts.master;
  const all = ['0.0.0.0', '::', ''].includes(opts.channel.interface);
  if (!all) return opts.channel.interface;
  if (probe.clientAddress) return probe.clientAddress;
  throw cliErrors.make('BRINE_ERR_CLI_BOOTSTRAP_MASTER_ADDRESS', { host: host.spec, interface: opts.channel.interface });
}

/** The public key the target printed: one Ed25519 SPKI PEM, or the host fails. */
function publicKeyOf(host: HostSpec, text: string): string {
  const pem = /-----BEGIN PUBLIC KEY-----\n[A-Za-z0-9+/=\n]{40,400}-----END PUBLIC KEY-----\n$/.exec(text)?.[0];
  const bad = (detail: string) => cliErrors.make('BRINE_ERR_CLI_BOOTSTRAP_REPLY', { host: host.spec, step: 'brine minion-key', detail });
  if (!pem) throw bad('no PEM public key at the end of its output');
  try {
    if (createPublicKey(pem).asymmetricKeyType === 'ed25519') return pem;
  } catch (err) {
    throw bad((err as Error).message);
  }
  throw bad('not an Ed25519 key');
}

/** Copies the release over when the target's differs; returns what was done. */
async function install(host: HostSpec, opts: BootstrapOptions, prefix: string, probe: Probe): Promise<string | undefined> {
  const arch = MACHINE_ARCH[probe.machine] ?? probe.machine;
  const tarball = opts.tarballs.find((t) => t.arch === arch);
  if (!tarball) {
    throw cliErrors.make('BRINE_ERR_CLI_BOOTSTRAP_ARCH', { host: host.spec, machine: probe.machine, arch, given: opts.tarballs.map((t) => t.file).join(', ') });
  }
  if (probe.installed === tarball.sha256) return undefined;
  opts.onStep(host, 'copy');
  const out = await sshStep(host, opts.ssh, 'install', remoteCommand(INSTALL, [prefix, tarball.sha256]), createReadStream(tarball.file));
  if (out.trim() !== 'installed') throw cliErrors.make('BRINE_ERR_CLI_BOOTSTRAP_REPLY', { host: host.spec, step: 'install', detail: shown(out, 80) });
  return `installed brine ${tarball.version}`;
}

/** Config, supervisor or unit written where they differ; the key made on the target and read back. */
async function configure(host: HostSpec, opts: BootstrapOptions, prefix: string, probe: Probe): Promise<{ wrote: string[]; pub: string }> {
  const config =
    `# Written by brine bootstrap; running it again rewrites this file.\n` +
    stringify({
      id: host.id,
      master: masterAddress(host, opts, probe),
      master_port: opts.channel.port,
      master_finger: opts.channel.fingerprint,
      data_dir: targetPath(opts.dataDir, host.id, '--data-dir'),
    });
  const files: Array<[string, string]> = [[`${prefix}/etc/minion.yaml`, config]];
  files.push(probe.init === 'systemd' ? [UNIT_FILE, systemdUnit(prefix)] : [`${prefix}/bin/brine-minion-supervise`, SUPERVISOR]);
  opts.onStep(host, 'configure');
  const out = await sshStep(host, opts.ssh, 'configure', remoteCommand(CONFIGURE, [prefix, ...files.flat()]));
  const start = out.indexOf('-----BEGIN');
  const wrote = (start >= 0 ? out.slice(0, start) : out).split('\n').filter(Boolean);
  const names = new Set(files.map(([f]) => `wrote ${f}`));
  const odd = wrote.find((l) => !names.has(l));
  if (odd !== undefined) throw cliErrors.make('BRINE_ERR_CLI_BOOTSTRAP_REPLY', { host: host.spec, step: 'configure', detail: `'${shown(odd, 80)}'` });
  return { wrote: wrote.map((l) => l.slice(6)), pub: publicKeyOf(host, start >= 0 ? out.slice(start) : '') };
}

/** Starts (or restarts, or finds running) the minion and waits for it to be connected. */
async function startAndWait(host: HostSpec, opts: BootstrapOptions, prefix: string, probe: Probe, restart: boolean, unitChanged: boolean): Promise<string> {
  const waiting = opts.watch.next(host.id, opts.timeoutSeconds * 1000);
  try {
    opts.onStep(host, 'start');
    const args = [prefix, restart ? '1' : '0', probe.init, unitChanged ? '1' : '0'];
    const action = (await sshStep(host, opts.ssh, 'start', remoteCommand(START, args))).trim();
    if (!['started', 'restarted', 'running'].includes(action)) {
      throw cliErrors.make('BRINE_ERR_CLI_BOOTSTRAP_REPLY', { host: host.spec, step: 'start', detail: `'${shown(action, 80)}'` });
    }
    opts.onStep(host, 'wait');
    if (action === 'running') {
      const { minions } = await opts.client.get<{ minions: Array<{ id: string; connected: boolean }> }>('/v1/minions');
      if (minions.some((m) => m.id === host.id && m.connected)) return action;
    }
    if (await waiting.started) return action;
    const tail = await ssh(host, opts.ssh, remoteCommand(LOG_TAIL, [prefix, probe.init]));
    throw cliErrors.make('BRINE_ERR_CLI_BOOTSTRAP_NOT_CONNECTED', {
      host: host.spec,
      id: host.id,
      action,
      seconds: opts.timeoutSeconds,
      log: shown(tail.stdout || tail.stderr) || '(none)',
    });
  } finally {
    waiting.cancel();
  }
}

/**
 * One host, start to end: probe, copy the release when it differs, write the minion config with
 * this master's address and fingerprint, have the target make its key and accept what it printed,
 * start the minion and wait for it. Each step changes only what differs, so a second run is a no-op.
 */
export async function bootstrapHost(host: HostSpec, opts: BootstrapOptions): Promise<HostReport> {
  const prefix = targetPath(opts.prefix, host.id, '--prefix');
  opts.onStep(host, 'probe');
  const probe = parseProbe(host, await sshStep(host, opts.ssh, 'probe', remoteCommand(PROBE, [prefix])));
  const done: string[] = [];
  const installed = await install(host, opts, prefix, probe);
  if (installed) done.push(installed);
  const { wrote, pub } = await configure(host, opts, prefix, probe);
  if (wrote.length) done.push(`wrote ${wrote.join(', ')}`);
  opts.onStep(host, 'accept key');
  const key = await opts.client.post<{ fingerprint: string; changed: boolean }>('/v1/keys/preseed', { minion: host.id, pub });
  if (key.changed) done.push(`key accepted (${key.fingerprint})`);
  const action = await startAndWait(host, opts, prefix, probe, done.length > 0, wrote.includes(UNIT_FILE));
  if (done.length === 0 && action === 'running') {
    return { host, changed: false, summary: `unchanged: minion ${host.id} connected, its release, config and key as they were (${prefix})` };
  }
  return { host, changed: true, summary: `${[...done, `minion ${action}`].join(', ')}, connected as ${host.id}` };
}
